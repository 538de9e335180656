// Command host launches one context-provider plugin the way the
// PluggableHarness kernel does (hashicorp/go-plugin, gRPC only, the kernel's
// handshake, KernelCallbackService on broker ID 1), runs the bring-up calls
// and one Contribute, then Kill()s it. It prints one JSON object per line on
// stdout so a test can check every step with its own protobuf classes.
//
// Usage: host PLUGIN TOKEN_BUDGET WORKING_DIRECTORY [MIN_LOG_ENTRIES]
//
// A negative TOKEN_BUDGET is the bad request: the plugin must answer
// INVALID_ARGUMENT with a ContextError in grpc-status-details-bin.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/golang/protobuf/proto"
	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const (
	serviceName = "/pluggableharness.context.v1.ContextService/"
	callTimeout = 20 * time.Second
)

var handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "PLUGGABLEHARNESS_AGENT_PLUGIN",
	MagicCookieValue: "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake",
}

// contextPlugin is the kernel's adapter: at dispense it offers the callback
// service on broker ID 1 and hands back the connection to the plugin.
type contextPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	cb *callbacks
}

func (p *contextPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return fmt.Errorf("host side only")
}

func (p *contextPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (interface{}, error) {
	go broker.AcceptAndServe(1, func(opts []grpc.ServerOption) *grpc.Server {
		server := grpc.NewServer(append(opts, grpc.CustomCodec(rawCodec{}))...)
		server.RegisterService(&kernelCallbackDesc, p.cb)
		return server
	})
	return conn, nil
}

// lockedBuffer collects the plugin's stderr (written from go-plugin's reader goroutine).
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

var out = json.NewEncoder(os.Stdout)

func emit(v map[string]interface{}) {
	if err := out.Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, "host: stdout:", err)
		os.Exit(3)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// kernelEnv is the kernel's allowlist; go-plugin appends the host's own
// environment and its variables after it.
func kernelEnv() []string {
	env := []string{}
	for _, key := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(key); ok {
			env = append(env, key+"="+v)
		}
	}
	return append(env, "OTEL_RESOURCE_ATTRIBUTES=pluggableharness.producer.category=context,"+
		"pluggableharness.producer.name=conventions,pluggableharness.producer.version=0.1.0")
}

func invoke(conn *grpc.ClientConn, method string, req []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var resp []byte
	started := time.Now()
	err := conn.Invoke(ctx, serviceName+method, req, &resp, grpc.ForceCodec(rawCodec{}))
	// grpc-go consumes grpc-status-details-bin into the status (it never
	// reaches the trailer metadata); re-encode that google.rpc.Status.
	st := status.Convert(err)
	details := ""
	if st.Code() != codes.OK {
		encoded, merr := proto.Marshal(st.Proto())
		if merr != nil {
			fmt.Fprintln(os.Stderr, "host: status:", merr)
			os.Exit(3)
		}
		details = base64.StdEncoding.EncodeToString(encoded)
	}
	emit(map[string]interface{}{
		"event":    "call",
		"method":   method,
		"code":     st.Code().String(),
		"message":  st.Message(),
		"request":  base64.StdEncoding.EncodeToString(req),
		"response": base64.StdEncoding.EncodeToString(resp),
		"status":   details,
		"ms":       ms(time.Since(started)),
	})
}

func main() {
	if len(os.Args) < 4 || len(os.Args) > 5 {
		fmt.Fprintln(os.Stderr, "usage: host PLUGIN TOKEN_BUDGET WORKING_DIRECTORY [MIN_LOG_ENTRIES]")
		os.Exit(2)
	}
	budget, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "host: bad TOKEN_BUDGET:", err)
		os.Exit(2)
	}
	minLogs := 0
	if len(os.Args) == 5 {
		if minLogs, err = strconv.Atoi(os.Args[4]); err != nil {
			fmt.Fprintln(os.Stderr, "host: bad MIN_LOG_ENTRIES:", err)
			os.Exit(2)
		}
	}

	cb := newCallbacks()
	stderr := &lockedBuffer{}
	cmd := exec.Command(os.Args[1])
	cmd.Env = kernelEnv()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake,
		Plugins:          map[string]plugin.Plugin{"context": &contextPlugin{cb: cb}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Stderr:           stderr,
		Logger: hclog.New(&hclog.LoggerOptions{
			Name: "gohost", Level: hclog.Debug, Output: os.Stderr,
		}),
	})

	started := time.Now()
	rpc, err := client.Client()
	if err != nil {
		emit(map[string]interface{}{"event": "handshake", "ok": false, "error": err.Error(),
			"stderr": stderr.String()})
		client.Kill()
		os.Exit(1)
	}
	emit(map[string]interface{}{
		"event": "handshake", "ok": true, "ms": ms(time.Since(started)),
		"negotiated_version": client.NegotiatedVersion(), "protocol": string(client.Protocol()),
	})
	if client.NegotiatedVersion() != 1 {
		client.Kill()
		os.Exit(1)
	}
	raw, err := rpc.Dispense("context")
	if err != nil {
		emit(map[string]interface{}{"event": "dispense", "ok": false, "error": err.Error()})
		client.Kill()
		os.Exit(1)
	}
	conn := raw.(*grpc.ClientConn)

	invoke(conn, "Describe", []byte{})
	invoke(conn, "GetCapabilities", []byte{})
	invoke(conn, "Configure", configureRequest())
	invoke(conn, "Contribute", contextRequest(budget, os.Args[3]))

	// Plugins log asynchronously; like a kernel that keeps running, give the
	// entries a moment to arrive before shutting the callback server down.
	deadline := time.After(3 * time.Second)
	for received := 0; received < minLogs; received++ {
		select {
		case <-cb.logged:
		case <-deadline:
			received = minLogs
		}
	}

	killStarted := time.Now()
	client.Kill()
	killTook := time.Since(killStarted)
	for wait := time.Now(); !client.Exited() && time.Since(wait) < 3*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
	exit := map[string]interface{}{"event": "kill", "kill_ms": ms(killTook), "exited": client.Exited()}
	if state := cmd.ProcessState; state != nil {
		exit["exit_code"] = state.ExitCode()
		if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			exit["signal"] = ws.Signal().String()
		}
	}
	emit(exit)

	counts, logs, rejected := cb.snapshot()
	emit(map[string]interface{}{
		"event": "callbacks", "count_tokens": counts, "logs": logs, "rejected_logs": rejected,
	})
	emit(map[string]interface{}{"event": "stderr", "text": stderr.String()})
}
