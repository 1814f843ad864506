#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/)
from the tests: the JSON of tests/conformance/data and tests/data, and the
string literals of the unit tests (states, annotations, lists, cache
entries). Run from anywhere; rewrites the corpus directories. The corpora
are committed: this script is only needed to regenerate them."""

import glob
import hashlib
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
TESTS = os.path.join(TOP, "tests")
MAX_SEEDS = 48
MAX_SIZE = 4096

LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def c_strings(path):
    """The string literals of a C file, adjacent literals joined, escapes
    decoded (bytes)."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    out = []
    pos = 0
    while True:
        m = LITERAL.search(text, pos)
        if not m:
            break
        parts = [m.group(1)]
        pos = m.end()
        while True:
            m2 = re.compile(r'\s*"((?:[^"\\\n]|\\.)*)"').match(text, pos)
            if not m2:
                break
            parts.append(m2.group(1))
            pos = m2.end()
        out.append(decode("".join(parts)))
    return out


def decode(s):
    b = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            b += c.encode("utf-8")
            i += 1
            continue
        n = s[i + 1]
        simple = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34, "'": 39, "a": 7}
        if n == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2 :])
            b.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        elif n in "01234567" and re.match(r"[0-7]{2,3}", s[i + 1 :]):
            m = re.match(r"[0-7]{1,3}", s[i + 1 :])
            b.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        else:
            b.append(simple.get(n, ord(n)))
            i += 2
    return bytes(b)


def json_objects(strings):
    return [s for s in strings if s.lstrip().startswith(b"{")]


def write_corpus(target, seeds):
    d = os.path.join(HERE, "corpus", target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    seen = set()
    kept = 0
    for s in seeds:
        if len(s) > MAX_SIZE:
            continue
        h = hashlib.sha1(s).hexdigest()
        if h in seen:
            continue
        seen.add(h)
        with open(os.path.join(d, h[:16]), "wb") as f:
            f.write(s)
        kept += 1
        if kept >= MAX_SEEDS:
            break
    print(f"{target}: {kept} seeds")


def files(pattern):
    return sorted(glob.glob(os.path.join(TESTS, pattern)))


def compact(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def data_json():
    """Every JSON document of the test data, parsed."""
    docs = []
    for p in files("conformance/data/*/*.json"):
        docs.append((p, json.load(open(p))))
    return docs


def result_seeds():
    seeds = []
    vectors = json.load(open(os.path.join(TESTS, "data", "result-conversion.json")))["vectors"]
    for p, d in data_json():
        if "result" in os.path.basename(p):
            seeds.append(json.dumps(d, indent=1).encode())
    for v in vectors:
        seeds.append(compact(v["input"]))
        if "output" in v:
            seeds.append(compact(v["output"]))
    for s in json_objects(c_strings(os.path.join(TESTS, "unit", "lib", "test_result.c"))):
        seeds.append(s)
    # Error results (spec section 5, "Error").
    seeds += [
        b'{"cniVersion":"1.0.0","code":7,"msg":"Invalid Configuration","details":"x"}',
        b'{"cniVersion":"0.1.0","code":11,"msg":"try again"}',
        b'{"code":100,"msg":"plugin-specific","details":""}',
    ]
    return seeds


def netlist_seeds():
    seeds = []
    for p, d in data_json():
        if os.path.basename(p) == "netlist.json":
            seeds.append(json.dumps(d, indent=2).encode())
            for plugin in d.get("plugins", []):
                single = dict(plugin)
                single["cniVersion"] = d["cniVersion"]
                single["name"] = d["name"]
                seeds.append(compact(single))
    for p in files("../config/net.d/*"):
        seeds.append(open(p, "rb").read())
    for s in json_objects(c_strings(os.path.join(TESTS, "unit", "lib", "test_conf.c"))):
        if b"%" not in s:
            seeds.append(s)
    return seeds


def cache_seeds():
    seeds = []
    for s in json_objects(c_strings(os.path.join(TESTS, "unit", "lib", "test_cache.c"))):
        if b"%" not in s and (b"kind" in s or b"cniVersion" in s):
            seeds.append(s)
    # Entries as the reference library writes them, for each network of the
    # test data.
    import base64

    for p, d in data_json():
        if os.path.basename(p) != "netlist.json":
            continue
        result = json.load(open(os.path.join(os.path.dirname(p), "result-bridge.json")))
        entry = {
            "kind": "cniCacheV1",
            "containerId": "ctr1",
            "config": base64.b64encode(json.dumps(d).encode()).decode(),
            "ifName": "eth0",
            "networkName": d["name"],
            "netns": "/var/run/netns/x",
            "cniArgs": [["IgnoreUnknown", "1"], ["K8S_POD_NAME", "p"]],
            "capabilityArgs": {"portMappings": [{"hostPort": 8080, "containerPort": 80, "protocol": "tcp"}]},
            "result": result,
        }
        seeds.append(compact(entry))
        seeds.append(compact(result))  # the legacy format: a bare result
    return seeds


def state_seeds():
    strings = c_strings(os.path.join(TESTS, "unit", "hook", "request", "test_oci_state.c"))
    states, configs = [], []
    for s in json_objects(strings):
        if b"ociVersion" in s and b'"id"' in s:
            states.append(s.replace(b"%s", b"/run/bundle"))
        elif b"%" not in s:
            configs.append(s)
    seeds = []
    for i, s in enumerate(states):
        seeds.append(s)
        if b"bundle" in s and configs:
            seeds.append(s + b"\0" + configs[i % len(configs)])
    return seeds


def annotation_seeds():
    # The annotations' own tests, then the twin tests of the files that
    # read their values (hook/request/port-mappings.c...) and of plugin-args.c.
    strings = []
    for name in ("annotations", "plugin_args", "port_mappings", "addresses", "bandwidth",
                 "cni_args"):
        strings += c_strings(os.path.join(TESTS, "unit", "hook", "request", "test_%s.c" % name))
    keys = [
        "k8s.v1.cni.cncf.io/networks",
        "io.cnihook.networks",
        "io.cnihook.ports",
        "io.cnihook.mac",
        "io.cnihook.ips",
        "io.cnihook.bandwidth",
        "io.cnihook.args",
        "io.cnihook.netns",
        "io.kubernetes.cri-o.ContainerType",
        "io.kubernetes.pod.name",
        "io.kubernetes.pod.namespace",
        "io.kubernetes.pod.uid",
        "io.kubernetes.cri.sandbox-name",
        "io.kubernetes.cri.sandbox-namespace",
    ]
    values = [s for s in strings if s and not s.startswith(b"annotation") and len(s) < 600]

    def pick(pred):
        return [v for v in values if pred(v)]

    npwg = pick(lambda v: v.lstrip().startswith(b"[") and b'"name"' in v)
    short = pick(lambda v: re.fullmatch(rb"[a-z0-9@/.,\- ]+", v) is not None and b"," in v)
    ports = pick(lambda v: re.fullmatch(rb"[\[\]0-9a-fA-F:./ ,tcpudsTCPUDS]+", v) is not None and b":" in v)
    ips = pick(lambda v: re.fullmatch(rb"[0-9a-f:./, ]+", v) is not None and b"/" in v)

    def ann(flags, *pairs):
        b = bytes([flags])
        for k, v in pairs:
            b += k.encode() + b"\0" + (v if isinstance(v, bytes) else v.encode()) + b"\0"
        return b

    seeds = []
    for i, v in enumerate(npwg[:12]):
        seeds.append(ann(0x1F if i % 2 else 0x00, (keys[0], v)))
    for i, v in enumerate(short[:8]):
        seeds.append(ann(0x05, (keys[1], v)))
    for i, v in enumerate(ports[:8]):
        seeds.append(ann(0x01, (keys[1], "n"), (keys[2], v)))
    for i, v in enumerate(ips[:4]):
        seeds.append(ann(0x04 if i % 2 else 0x00, (keys[1], "n"), (keys[4], v)))
    seeds += [
        ann(0x1F, (keys[1], "a,b@net2"), (keys[3], " C2:11:22:33:44:55 "),
            (keys[5], '{"egressRate":10, "ingressRate":20}')),
        ann(0x20, (keys[2], "8080:80"), (keys[3], "c2:11:22:33:44:55")),
        ann(0x40, (keys[6], "FOO=bar;baz=1"), (keys[7], "/run/netns/x")),
        ann(0x00, (keys[1], "n"), (keys[8], "sandbox"), (keys[9], "pod"), (keys[10], "ns"),
            (keys[11], "uid-1")),
        ann(0x80, (keys[1], "n"), (keys[12], "pod"), (keys[13], "ns")),
        ann(0x00, (keys[8], "container"), (keys[1], "n")),
        ann(0x60, ("org.example.other", "x")),
    ]
    return seeds


def main():
    write_corpus("fuzz_result", result_seeds())
    write_corpus("fuzz_netlist", netlist_seeds())
    write_corpus("fuzz_cache", cache_seeds())
    write_corpus("fuzz_state", state_seeds())
    write_corpus("fuzz_annotations", annotation_seeds())


if __name__ == "__main__":
    sys.exit(main())
