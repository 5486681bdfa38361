package jsonrpc

import (
	"bytes"
	"context"
	"net"
)

// Builder assembles one outgoing message as pieces. Small values are copied into the piece being
// written; a big text already in memory is referenced (Ref) as a piece of its own, and the
// message goes out from there with one vectored write. On this machine, copying a 13 MB text into
// a fresh buffer costs 4-10 ms (the pages are faulted in anew each time), more than the bridge's
// remaining work on it. A Builder is for one goroutine; the zero value is ready to use.
type Builder struct {
	done net.Buffers // finished pieces
	cur  []byte      // the piece being written
}

// refMin is the least size referenced rather than copied: below it a copy is cheaper than a
// piece of its own (another frame on a WebSocket, another write(2) on a pipe).
const refMin = 64 << 10

// Append appends a copy of p.
func (b *Builder) Append(p []byte) { b.cur = append(b.cur, p...) }

// AppendString appends s.
func (b *Builder) AppendString(s string) { b.cur = append(b.cur, s...) }

// AppendByte appends c.
func (b *Builder) AppendByte(c byte) { b.cur = append(b.cur, c) }

// Ref appends p without copying it when it is big: p must then stay unchanged until the message
// was written (the bridge's texts are never modified once received).
func (b *Builder) Ref(p []byte) {
	if len(p) < refMin {
		b.Append(p)
		return
	}
	if len(b.cur) > 0 {
		b.done = append(b.done, b.cur)
		b.cur = nil
	}
	b.done = append(b.done, p)
}

// Pieces returns the message: one piece unless Ref kept a big text apart. The Builder must not
// be used afterwards.
func (b *Builder) Pieces() net.Buffers {
	if len(b.cur) > 0 || len(b.done) == 0 {
		b.done = append(b.done, b.cur)
	}
	return b.done
}

// Bytes returns the message as one slice, joining the pieces (a copy only when there are several).
func (b *Builder) Bytes() []byte { return join(b.Pieces()) }

func join(parts net.Buffers) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	return bytes.Join(parts, nil)
}

// PiecesWriter is implemented by a Stream that writes a message given in pieces as one message
// (a vectored write on a pipe, frames of one message on a WebSocket). Conn joins the pieces for a
// Stream without it.
type PiecesWriter interface {
	WritePieces(ctx context.Context, msg net.Buffers) error
}

// writeMsg writes msg to s in one piece or, when s can, in several.
func writeMsg(ctx context.Context, s Stream, msg net.Buffers) error {
	if pw, ok := s.(PiecesWriter); ok && len(msg) > 1 {
		return pw.WritePieces(ctx, msg)
	}
	return s.Write(ctx, join(msg))
}
