package main

// Just enough protobuf to speak the few messages this host needs, so no Go
// code has to be generated: a pass-through codec for gRPC, protowire for the
// bytes. Field numbers are those of /work/shared/spec/wire-contract.md.

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// rawCodec hands message bytes through unchanged. It satisfies both
// encoding.Codec (for grpc.ForceCodec on calls) and the older grpc.Codec (for
// grpc.CustomCodec on the callback server). Named "proto" so the content-type
// stays application/grpc+proto.
type rawCodec struct{}

func (rawCodec) Marshal(v interface{}) ([]byte, error) {
	switch m := v.(type) {
	case []byte:
		return m, nil
	case *[]byte:
		return *m, nil
	}
	return nil, fmt.Errorf("rawCodec: cannot marshal %T", v)
}

func (rawCodec) Unmarshal(data []byte, v interface{}) error {
	p, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec: cannot unmarshal into %T", v)
	}
	*p = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string   { return "proto" }
func (rawCodec) String() string { return "proto" }

// field is one decoded wire field: varint fields fill num, length-delimited
// ones fill data. Other wire types are skipped (none of ours use them).
type field struct {
	num    protowire.Number
	typ    protowire.Type
	varint uint64
	data   []byte
}

func parse(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.varint, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.data, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		out = append(out, f)
	}
	return out, nil
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendStringField(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	return appendBytesField(b, num, []byte(v))
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// textBlock is content.v1.ContentBlock{text: TextBlock{text}}.
func textBlock(text string) []byte {
	return appendBytesField(nil, 1, appendStringField(nil, 1, text))
}

// foreignSection is a content.v1.ContextSection another provider produced
// earlier in the chain; the plugin must hand it back byte-identical.
func foreignSection() []byte {
	var b []byte
	b = appendStringField(b, 1, "foreign-notes")
	b = appendStringField(b, 2, "Notes from an earlier provider")
	b = appendBytesField(b, 3, textBlock("Kept as is: ünïcødé ✓, tabs\tand\nnewlines.\n"))
	b = appendVarintField(b, 4, 13)
	b = appendVarintField(b, 5, 2) // STABILITY_DYNAMIC
	b = appendVarintField(b, 6, 1) // truncated
	return b
}

// contextRequest is context.v1.ContextRequest as the kernel would send it on a
// first turn: budget, model target, working directory, one prior section.
func contextRequest(budget int64, workdir string) []byte {
	var b []byte
	b = appendStringField(b, 1, "go-host-session")
	b = appendStringField(b, 3, "01J00000000000000000000000")
	b = appendVarintField(b, 4, uint64(budget)) // int64: negatives are 10-byte varints
	model := appendStringField(nil, 1, "go-host-model")
	model = appendVarintField(model, 2, 200000)
	b = appendBytesField(b, 5, model)
	b = appendStringField(b, 7, workdir)
	b = appendBytesField(b, 8, foreignSection())
	return b
}

// configureRequest is context.v1.ConfigureRequest{config: Struct{}}.
func configureRequest() []byte {
	return appendBytesField(nil, 1, nil)
}
