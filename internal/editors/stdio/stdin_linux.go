package stdio

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// readBatch is the least time between two waits for stdin while the editor streams small
// messages (a flood of selections): they are then read several at a time, one wake-up per batch
// instead of one per message, each of which costs tens of µs on a VM. A message is delayed only
// when the two before it came less than readBatch apart (a stream), so an editor that debounces
// (50 ms) never waits, nor does an answer that quickly follows another (an editor's accept right
// after its showDiff answer waited up to 12 ms when one small message was enough to pause), and a flood's last selection still reaches clients within readBatch plus the
// transport's 25 ms pacing (37 ms), inside one debounce. Flood CPU (% of a core, 3 runs each,
// batch/pacing): 4 ms/20 ms 5.4-6.7, 8/20 4.2-5.2, 12/20 4.3-4.6, 12/25 3.6-3.7.
var readBatch = 12 * time.Millisecond

// smallRead is the most a read may return and still count as part of a stream of small
// messages; a big text crossing the pipe is never held back.
const smallRead = 16 << 10

// fdReader reads a pipe or socket on stdin with ppoll and read(2), without the runtime's poller
// watching stdin itself: a descriptor in the poller wakes it for every write of the editor, even
// while the reader pauses between batches. Reads that cannot block are raw syscalls, which
// spares the runtime's syscall bookkeeping (entersyscall wakes its monitor thread whenever the
// process was idle: two more thread switches per message in a flood). To wait for data it parks
// in the runtime's poller on an epoll instance of its own that watches stdin one-shot, armed only
// while waiting: a wait blocked in a system call would hold the only P (GOMAXPROCS=1) until the
// runtime's monitor takes it back, up to 10 ms later, delaying every WebSocket message and
// answer meanwhile (measured: 13 ms before an editor's accept was handled). The file's mode is
// left as it is. Close ends a pending Read at once.
type fdReader struct {
	f    *os.File // keeps fd open
	fd   int
	done <-chan struct{}

	last   time.Time // when the last small read returned
	stream bool      // it came within readBatch of the small read before, or after a pause
	paused bool      // the last wait was a pause
	pause  *time.Timer

	ep   *os.File        // the epoll instance, non-blocking, in the runtime's poller
	epRC syscall.RawConn // ep's, for waiting on it

	mu     sync.Mutex
	closed bool
}

// newFDReader returns a reader for f, or nil when f is not a pipe or socket.
func newFDReader(f *os.File, done <-chan struct{}) *fdReader {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	rc.Control(func(u uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(u), &st) == nil {
			if m := st.Mode & syscall.S_IFMT; m == syscall.S_IFIFO || m == syscall.S_IFSOCK {
				fd = int(u)
			}
		}
	})
	if fd < 0 {
		return nil
	}
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLONESHOT, Fd: int32(fd)}
	if syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &ev) != nil || syscall.SetNonblock(ep, true) != nil {
		syscall.Close(ep)
		return nil
	}
	// Non-blocking, so os.NewFile puts it into the runtime's poller.
	r := &fdReader{f: f, fd: fd, done: done, ep: os.NewFile(uintptr(ep), "stdin-epoll")}
	if r.epRC, err = r.ep.SyscallConn(); err != nil {
		r.ep.Close()
		return nil
	}
	return r
}

type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1

func (r *fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if r.isClosed() {
			return 0, os.ErrClosed
		}
		// Anything to read (data, end of file or an error) is read at once.
		fds := [1]pollFd{{fd: int32(r.fd), events: pollIn}}
		var zero syscall.Timespec
		n, _, errno := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
		if errno == 0 && n > 0 {
			m, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(r.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch {
			case errno == syscall.EINTR || errno == syscall.EAGAIN:
				continue
			case errno != 0:
				return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
			case m == 0:
				return 0, io.EOF
			}
			if now := time.Now(); m <= smallRead {
				r.stream = r.paused || now.Sub(r.last) < readBatch
				r.last = now
			} else {
				r.last, r.stream = time.Time{}, false
			}
			r.paused = false
			return int(m), nil
		}
		if wait := readBatch - time.Since(r.last); wait > 0 && r.stream {
			if r.pause == nil {
				r.pause = time.NewTimer(wait)
			} else {
				r.pause.Reset(wait)
			}
			select {
			case <-r.pause.C:
			case <-r.done:
				r.pause.Stop()
			}
			r.last, r.paused = time.Time{}, true
			continue
		}
		if err := r.wait(); err != nil {
			return 0, os.ErrClosed
		}
	}
}

// wait parks until stdin is readable (or at its end), or Close.
func (r *fdReader) wait() error {
	// Raw: neither call blocks, and the runtime's syscall path would wake its monitor thread,
	// which then polls every 20 µs for a while (a third of the bridge's CPU in a fan-out).
	// Through Control, so that a concurrent Close cannot close the descriptor under the call.
	var errno syscall.Errno
	err := r.epRC.Control(func(ep uintptr) {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLONESHOT, Fd: int32(r.fd)}
		_, _, errno = syscall.RawSyscall6(syscall.SYS_EPOLL_CTL, ep, syscall.EPOLL_CTL_MOD, uintptr(r.fd), uintptr(unsafe.Pointer(&ev)), 0, 0)
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return r.epRC.Read(func(ep uintptr) bool {
		var got [1]syscall.EpollEvent
		n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, ep, uintptr(unsafe.Pointer(&got[0])), 1, 0, 0, 0)
		return n > 0 || errno != 0 && errno != syscall.EINTR
	})
}

func (r *fdReader) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// Close ends a pending Read and makes later ones return os.ErrClosed.
func (r *fdReader) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	r.ep.Close() // a parked wait returns at once
}
