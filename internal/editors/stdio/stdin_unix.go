//go:build unix

package stdio

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readBatch is the least time between two waits for stdin while the editor streams small
// messages (a flood of selections): they are then read several at a time, one wake-up per batch
// instead of one per message, each of which costs tens of µs on a VM. A message is delayed only
// when the streamRun small reads before it came less than readBatch apart each (a stream), so an
// editor that debounces (50 ms) never waits, nor does an answer that quickly follows another (an
// editor's accept right after its showDiff answer, which came right after its closeDiff answer:
// the benchmark's openDiff round trip, 10-25 ms slower when two small reads made a stream). It is a little longer than the transport's pacing of selections
// (25 ms per client, less 2 ms of slack): each batch's last selection (jsonrpc.Conn.Latest drops
// the others unread) is then due when it is read, even when writing the one before to 16
// clients took a few ms, and this goroutine writes it at once: a flood costs one wake-up per
// batch and no pacer tick, and its last selection reaches clients within about 30 ms. Flood CPU
// (% of a core, bench driver, shared 2-core machine, interleaved runs, Conn.Latest in all):
// 12 ms 7.2, 3.8, 6.9, 8.0; 25 ms 3.6, 4.5, 4.7, 4.3, 5.5 (last selection at all 16 clients
// after 21-42 ms: the pacer's tick when writing the one before took over 2 ms); 28 ms 5.4, 5.5,
// 5.5 (4-27 ms). Before Conn.Latest, 12 ms: 7.3-8.4 (docs/performance.md section 9).
var readBatch = 28 * time.Millisecond

// streamRun is how many small reads in a row, each within readBatch of the one before, make a
// stream.
const streamRun = 3

// smallRead is the most a read may return and still count as part of a stream of small
// messages; a big text crossing the pipe is never held back.
const smallRead = 16 << 10

// fdReader reads a pipe or socket on stdin through the runtime's poller: a Read waiting for the
// editor parks there ("IO wait") and holds no thread, and Close ends it at once. It reads a
// duplicate of the descriptor, made non-blocking (what puts an *os.File into the poller); the
// mode, which the duplicate shares with stdin, is put back on Close. While small messages stream
// in it pauses instead of waiting for each (readBatch), which is why it reads with unix.Read
// inside RawConn.Read: that tells "nothing there yet" (pause, or wait) from data.
type fdReader struct {
	orig *os.File // stdin, to put its mode back
	f    *os.File // the non-blocking duplicate
	rc   syscall.RawConn
	done <-chan struct{}

	last   time.Time // when the last small read returned
	run    int       // small reads in a row, each within readBatch of the one before or after a pause
	paused bool      // the last wait was a pause
	pause  *time.Timer

	wasBlocking bool
}

// newFDReader returns a reader for f, or nil when f is not a pipe or socket.
func newFDReader(f *os.File, done <-chan struct{}) *fdReader {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	orc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	dup, blocking := -1, false
	orc.Control(func(fd uintptr) {
		d, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return
		}
		fl, err := unix.FcntlInt(uintptr(d), unix.F_GETFL, 0)
		if err == nil && unix.SetNonblock(d, true) == nil {
			dup, blocking = d, fl&unix.O_NONBLOCK == 0
		} else {
			unix.Close(d)
		}
	})
	if dup < 0 {
		return nil
	}
	r := &fdReader{orig: f, f: os.NewFile(uintptr(dup), f.Name()), done: done, wasBlocking: blocking}
	if r.rc, err = r.f.SyscallConn(); err != nil {
		r.Close()
		return nil
	}
	return r
}

func (r *fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		var (
			n     int
			rerr  error
			pause bool
		)
		err := r.rc.Read(func(fd uintptr) bool {
			for {
				n, rerr = unix.Read(int(fd), p)
				if rerr != unix.EINTR {
					break
				}
			}
			if rerr != unix.EAGAIN {
				return true
			}
			// Nothing there yet: in a stream, pause so that what comes meanwhile is read at
			// once; else wait in the poller (false).
			pause = r.run >= streamRun && time.Since(r.last) < readBatch
			return pause
		})
		switch {
		case err != nil:
			return 0, os.ErrClosed
		case pause:
			r.wait(readBatch - time.Since(r.last))
			r.last, r.paused = time.Time{}, true
			continue
		case rerr != nil:
			return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: rerr}
		case n == 0:
			return 0, io.EOF
		}
		if now := time.Now(); n > smallRead {
			r.last, r.run = time.Time{}, 0
		} else if r.paused || now.Sub(r.last) < readBatch {
			r.last, r.run = now, r.run+1
		} else {
			r.last, r.run = now, 1
		}
		r.paused = false
		return n, nil
	}
}

// wait sleeps for d, or until Close.
func (r *fdReader) wait(d time.Duration) {
	if r.pause == nil {
		r.pause = time.NewTimer(d)
	} else {
		r.pause.Reset(d)
	}
	select {
	case <-r.pause.C:
	case <-r.done:
		r.pause.Stop()
	}
}

// Close ends a pending Read and makes later ones return os.ErrClosed; stdin gets its blocking
// mode back (through stdin itself: the duplicate is closed first, so that a Read cannot be left
// blocked in the kernel).
func (r *fdReader) Close() {
	if err := r.f.Close(); errors.Is(err, os.ErrClosed) || !r.wasBlocking {
		return
	}
	if rc, err := r.orig.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.SetNonblock(int(fd), false) })
	}
}
