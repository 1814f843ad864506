// refcni: a minimal CNI runtime on top of the reference Go library (libcni),
// used by the interop tests and the benchmark as the point of comparison for
// cnihook.
//
//	refcni add|check|del NETWORK NETNS
//
// It reads the same environment as the cnihook CLI (see /tmp/CLI.md, and the
// reference CLI cnitool): NETCONFPATH, CNI_PATH, CNI_IFNAME, CNI_ARGS, CAP_ARGS,
// CNI_CONTAINERID, CNI_CACHE_DIR and CNIHOOK_PLUGIN_TIMEOUT.
//
// Build offline against Debian's golang-github-appc-cni-dev:
//
//	GO111MODULE=off GOPATH=$tmp/gopath:/usr/share/gocode GOCACHE=$tmp/gocache \
//		go build -o $tmp/refcni tests/interop/refcni.go
package main

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/containernetworking/cni/libcni"
)

const usage = "usage: refcni add|check|del NETWORK NETNS"

func getenv(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// parseCNIArgs splits "K=V;K=V" into pairs. An empty string gives no pairs.
func parseCNIArgs(s string) ([][2]string, error) {
	if s == "" {
		return nil, nil
	}
	var out [][2]string
	for _, item := range strings.Split(s, ";") {
		kv := strings.SplitN(item, "=", 2)
		if len(kv) != 2 || kv[0] == "" {
			return nil, fmt.Errorf("CNI_ARGS: %q is not KEY=VALUE", item)
		}
		out = append(out, [2]string{kv[0], kv[1]})
	}
	return out, nil
}

// defaultContainerID derives the container id from the namespace path as the
// reference CLI (cnitool) and cnihook do: "cnitool-" and the first 20 hex
// digits of its SHA-512.
func defaultContainerID(netns string) string {
	sum := sha512.Sum512([]byte(netns))
	return "cnitool-" + hex.EncodeToString(sum[:10])
}

func run() error {
	if len(os.Args) != 4 {
		return fmt.Errorf("%s", usage)
	}
	verb, network, netns := os.Args[1], os.Args[2], os.Args[3]
	switch verb {
	case "add", "check", "del":
	default:
		return fmt.Errorf("unknown command %q; %s", verb, usage)
	}
	if netns != "" {
		abs, err := filepath.Abs(netns)
		if err != nil {
			return fmt.Errorf("netns %q: %w", netns, err)
		}
		netns = abs
	}

	confDir := getenv("NETCONFPATH", "/etc/cni/net.d")
	pluginPath := filepath.SplitList(getenv("CNI_PATH",
		"/opt/cni/bin:/usr/libexec/cni:/usr/lib/cni"))
	ifName := getenv("CNI_IFNAME", "eth0")
	cacheDir := getenv("CNI_CACHE_DIR", "")

	args, err := parseCNIArgs(os.Getenv("CNI_ARGS"))
	if err != nil {
		return err
	}
	var capArgs map[string]interface{}
	if s := os.Getenv("CAP_ARGS"); s != "" {
		if err := json.Unmarshal([]byte(s), &capArgs); err != nil {
			return fmt.Errorf("CAP_ARGS: %w", err)
		}
	}
	containerID := getenv("CNI_CONTAINERID", "")
	if containerID == "" {
		containerID = defaultContainerID(netns)
	}

	timeout := 60 * time.Second
	if s := os.Getenv("CNIHOOK_PLUGIN_TIMEOUT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return fmt.Errorf("CNIHOOK_PLUGIN_TIMEOUT: %q is not a positive number", s)
		}
		timeout = time.Duration(n) * time.Second
	}

	list, err := libcni.LoadConfList(confDir, network)
	if err != nil {
		return fmt.Errorf("load network %q from %s: %w", network, confDir, err)
	}

	cni := libcni.NewCNIConfigWithCacheDir(pluginPath, cacheDir, nil)
	rt := &libcni.RuntimeConf{
		ContainerID:    containerID,
		NetNS:          netns,
		IfName:         ifName,
		Args:           args,
		CapabilityArgs: capArgs,
	}

	// One deadline per operation: the library passes the context to every
	// plugin it runs.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	switch verb {
	case "add":
		result, err := cni.AddNetworkList(ctx, list, rt)
		if err != nil {
			return fmt.Errorf("add network %q: %w", network, err)
		}
		out, err := json.MarshalIndent(result, "", "    ")
		if err != nil {
			return fmt.Errorf("add network %q: encode result: %w", network, err)
		}
		if _, err := fmt.Printf("%s\n", out); err != nil {
			return err
		}
	case "check":
		if err := cni.CheckNetworkList(ctx, list, rt); err != nil {
			return fmt.Errorf("check network %q: %w", network, err)
		}
	case "del":
		if err := cni.DelNetworkList(ctx, list, rt); err != nil {
			return fmt.Errorf("del network %q: %w", network, err)
		}
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "refcni: %v\n", err)
		os.Exit(1)
	}
}
