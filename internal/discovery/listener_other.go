//go:build !linux

package discovery

// listenerUID is unknown outside Linux (no /proc/net/tcp): a listener on a lock's port is then
// taken as the lock's owner, as before (docs/security.md says so).
func listenerUID(port int) (int, bool) { return 0, false }

// uidsKnown: outside Linux, who owns a socket is not known (docs/security.md, known limits).
const uidsKnown = false

func peerUID(port, from int) (int, bool) { return 0, false }
