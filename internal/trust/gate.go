package trust

import "fmt"

// Gate returns a check of folder against the user's store (Dir), made afresh at each call so
// that `claude-ide-bridge trust` run in another terminal takes effect at the next server start:
// nil when folder is trusted, else an error saying how to trust it.
func Gate(folder string) func() error {
	return func() error {
		s, err := Open("")
		if err != nil {
			return err
		}
		if _, ok := s.Trusted(folder); ok {
			return nil
		}
		return fmt.Errorf("%s is not trusted (claude-ide-bridge trust %s)", folder, folder)
	}
}
