#!/usr/bin/python3
"""A small CRI client for tests/e2e/k8s.sh: one RuntimeService call per run,
requests and answers as JSON (the proto3 JSON mapping of api.proto).

  cri.py SOCKET CALL [JSON-REQUEST]
  cri.py SOCKET exec CONTAINER-ID COMMAND...   (ExecSync: its stdout, its exit code)

The Python modules of api.proto are made by grpc_tools.protoc into the
directory named by $CRI_PYDIR (k8s.sh does it once). A failed call prints
the gRPC status and message on stderr and exits 1.
"""
import json
import os
import sys

sys.path.insert(0, os.environ["CRI_PYDIR"])

import grpc  # noqa: E402
from google.protobuf import json_format  # noqa: E402

import api_pb2  # noqa: E402
import api_pb2_grpc  # noqa: E402


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    sock, call = argv[1], argv[2]
    channel = grpc.insecure_channel("unix://" + sock)
    stub = api_pb2_grpc.RuntimeServiceStub(channel)
    try:
        if call == "exec":
            req = api_pb2.ExecSyncRequest(container_id=argv[3], cmd=argv[4:], timeout=20)
            resp = stub.ExecSync(req, timeout=30)
            sys.stdout.buffer.write(resp.stdout)
            sys.stderr.buffer.write(resp.stderr)
            return resp.exit_code
        method = getattr(stub, call)
        req_type = getattr(api_pb2, call + "Request")
        req = json_format.Parse(argv[3] if len(argv) > 3 else "{}", req_type())
        resp = method(req, timeout=120)
        print(json.dumps(json_format.MessageToDict(resp)))
        return 0
    except grpc.RpcError as e:
        sys.stderr.write("%s: %s: %s\n" % (call, e.code().name, e.details()))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
