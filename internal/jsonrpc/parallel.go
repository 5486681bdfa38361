package jsonrpc

import (
	"runtime"
	"sync"
)

// Checking a new file text is the bridge's largest piece of work on it (~20 ms for 13 MB of
// source with an escape every ~10 bytes), and everyone waits for it: the Claude client for its
// answer, the editor for the diff. So a big string is cut where a string can be cut and the
// pieces are checked at once, one goroutine each.

// parallelMin is the least length of a string checked in pieces; a piece is at least half of it.
const parallelMin = 1 << 20

// Lend, if set, is called before the pieces of a big string are checked with the number of Ps
// they could use, and release after. A process that runs on one P (cmd/claude-ide-bridge) lends
// itself more for that time; with a nil Lend the pieces share the Ps there are.
var Lend func(n int) (release func())

// checkStringParallel is checkString for a big string: split into up to NumCPU pieces (at most
// 4), each checked by stringBody on its own. A piece that ends the string, or fails, decides;
// pieces after it are ignored (they may lie beyond the string).
func checkStringParallel(d []byte, i int) (int, error) {
	n := min(runtime.NumCPU(), 4, (len(d)-i)/(parallelMin/2))
	cuts := make([]int, 0, n+1) // piece k is d[cuts[k]:cuts[k+1]]
	cuts = append(cuts, i+1)
	for k := 1; k < n; k++ {
		at, ok := cutAt(d, max(i+1+(len(d)-i)*k/n, cuts[k-1]+1))
		if !ok {
			break
		}
		cuts = append(cuts, at)
	}
	if len(cuts) < 2 {
		return checkString(d, i)
	}
	cuts = append(cuts, len(d))
	type result struct {
		j  int
		st strStatus
	}
	res := make([]result, len(cuts)-1)
	if Lend != nil {
		defer Lend(len(res))()
	}
	var wg sync.WaitGroup
	for k := 1; k < len(res); k++ {
		wg.Go(func() { res[k].j, res[k].st = stringBody(d[:cuts[k+1]], cuts[k]) })
	}
	res[0].j, res[0].st = stringBody(d[:cuts[1]], cuts[0])
	wg.Wait()
	for k, r := range res {
		if r.st != strShort || k == len(res)-1 {
			return stringResult(d, i, r.j, r.st)
		}
	}
	panic("unreachable")
}

// cutAt returns the first place at or after p, within 4 KiB, where a string can be cut: after
// six ASCII bytes none of which is a backslash, it holds a whole number of escapes (the longest,
// \uXXXX, is six bytes) and of UTF-8 characters, so its two sides can be checked apart.
func cutAt(d []byte, p int) (int, bool) {
	clean := 0
	for k := max(p-6, 0); k < len(d) && k < p+4<<10; k++ {
		if c := d[k]; c >= 0x80 || c == '\\' {
			clean = 0
			continue
		}
		if clean++; clean >= 6 && k+1 >= p {
			return k + 1, k+1 < len(d)
		}
	}
	return 0, false
}
