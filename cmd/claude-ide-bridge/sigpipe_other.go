//go:build !unix

package main

// ignoreSIGPIPE: there is no SIGPIPE outside Unix; a write to a closed pipe fails with an error.
func ignoreSIGPIPE() {}
