package main

// KernelCallbackService as the kernel serves it on broker ID 1: CountTokens
// with the documented fallback (ceil(UTF-8 bytes of all text blocks / 4),
// exact=false) and Log with the kernel's validation. Every call is recorded
// so the test can see what the plugin sent.

import (
	"context"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type countCall struct {
	ModelID   string `json:"model_id"`
	TextBytes int    `json:"text_bytes"`
	Count     int64  `json:"count"`
}

type logEntry struct {
	Level   uint64 `json:"level"`
	Logger  string `json:"logger"`
	Message string `json:"message"`
}

type callbacks struct {
	mu       sync.Mutex
	counts   []countCall
	logs     []logEntry
	rejected int
	logged   chan struct{} // one send per accepted Log, never blocks
}

func newCallbacks() *callbacks {
	return &callbacks{logged: make(chan struct{}, 1024)}
}

func (c *callbacks) countTokens(req []byte) ([]byte, error) {
	top, err := parse(req)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	call := countCall{}
	for _, f := range top {
		switch f.num {
		case 1: // ContentBlock
			blocks, err := parse(f.data)
			if err != nil {
				return nil, status.Error(codes.InvalidArgument, err.Error())
			}
			for _, block := range blocks {
				if block.num != 1 { // only text blocks count
					continue
				}
				texts, err := parse(block.data)
				if err != nil {
					return nil, status.Error(codes.InvalidArgument, err.Error())
				}
				for _, t := range texts {
					if t.num == 1 {
						call.TextBytes += len(t.data)
					}
				}
			}
		case 2: // ModelRef
			ref, err := parse(f.data)
			if err != nil {
				return nil, status.Error(codes.InvalidArgument, err.Error())
			}
			for _, r := range ref {
				if r.num == 2 {
					call.ModelID = string(r.data)
				}
			}
		}
	}
	call.Count = int64((call.TextBytes + 3) / 4)
	c.mu.Lock()
	c.counts = append(c.counts, call)
	c.mu.Unlock()
	return appendVarintField(nil, 1, uint64(call.Count)), nil // exact=false: omitted
}

func (c *callbacks) log(req []byte) ([]byte, error) {
	top, err := parse(req)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	var entry *logEntry
	hasTime := false
	for _, f := range top {
		if f.num != 2 {
			continue
		}
		entry = &logEntry{}
		fields, err := parse(f.data)
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		for _, e := range fields {
			switch e.num {
			case 1:
				entry.Level = e.varint
			case 2:
				entry.Logger = string(e.data)
			case 3:
				entry.Message = string(e.data)
			case 5:
				hasTime = true
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if entry == nil || entry.Level == 0 || entry.Message == "" || !hasTime {
		c.rejected++
		return nil, status.Error(codes.InvalidArgument, "log entry needs level, message and time")
	}
	c.logs = append(c.logs, *entry)
	select {
	case c.logged <- struct{}{}:
	default:
	}
	return []byte{}, nil
}

func (c *callbacks) snapshot() ([]countCall, []logEntry, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]countCall{}, c.counts...), append([]logEntry{}, c.logs...), c.rejected
}

// unaryHandler is grpc.MethodDesc's handler type (unexported in grpc 1.33).
type unaryHandler = func(interface{}, context.Context, func(interface{}) error, grpc.UnaryServerInterceptor) (interface{}, error)

func unary(handle func(*callbacks, []byte) ([]byte, error)) unaryHandler {
	return func(srv interface{}, ctx context.Context, dec func(interface{}) error, _ grpc.UnaryServerInterceptor) (interface{}, error) {
		var req []byte
		if err := dec(&req); err != nil {
			return nil, err
		}
		return handle(srv.(*callbacks), req)
	}
}

var kernelCallbackDesc = grpc.ServiceDesc{
	ServiceName: "pluggableharness.kernel.v1.KernelCallbackService",
	HandlerType: (*interface{})(nil),
	Methods: []grpc.MethodDesc{
		{MethodName: "CountTokens", Handler: unary((*callbacks).countTokens)},
		{MethodName: "Log", Handler: unary((*callbacks).log)},
	},
	Streams:  []grpc.StreamDesc{},
	Metadata: "pluggableharness/kernel/v1/kernel.proto",
}
