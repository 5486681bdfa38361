package trust

// Gate returns a check of folder against the user's store (Dir), made afresh at each call so
// that `claude-ide-bridge trust` run in another terminal takes effect at the next server start:
// nil when servers may start there (Store.Check), else a *Refusal saying why and what to run.
func Gate(folder string) func() error {
	return func() error {
		s, err := Open("")
		if err != nil {
			return err
		}
		_, err = s.Check(folder)
		return err
	}
}
