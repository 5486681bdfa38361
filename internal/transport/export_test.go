package transport

// DirectWrites counts the latest-wins messages c's senders wrote themselves.
func DirectWrites(c *Client) uint64 { return c.direct.Load() }

var SendQueue = sendQueue
