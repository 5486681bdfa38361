package seltable

import "testing"

// Sel marks a selection empty exactly when start and end are equal; Skip keeps a case to
// Neovim [Since, Before); names are unique, since suites (Emacs's too) pick rows by name.
func TestTable(t *testing.T) {
	if s := Sel("/f", "", 1, 2, 1, 2); !s.Selection.IsEmpty || s.Selection.Start != (Pos{Line: 1, Character: 2}) {
		t.Errorf("empty: %+v", s)
	}
	if s := Sel("/f", "x", 1, 2, 1, 3); s.Selection.IsEmpty || s.Selection.End != (Pos{Line: 1, Character: 3}) || s.Text != "x" || s.FilePath != "/f" {
		t.Errorf("one character: %+v", s)
	}
	if s := Sel("/f", "\n", 0, 3, 1, 0); s.Selection.IsEmpty {
		t.Errorf("a line break is not empty: %+v", s)
	}
	c := Case{Since: 9, Before: 11}
	for minor, skip := range map[int]bool{7: true, 8: true, 9: false, 10: false, 11: true, 12: true} {
		if c.Skip(minor) != skip {
			t.Errorf("[9, 11).Skip(%d) = %v", minor, !skip)
		}
	}
	if (Case{}).Skip(7) || (Case{}).Skip(12) {
		t.Error("a case without limits skipped")
	}
	seen := map[string]bool{}
	for _, c := range Cases {
		if seen[c.Name] || c.Name == "" || c.Want == nil {
			t.Errorf("case %q: duplicate, unnamed or without a payload", c.Name)
		}
		seen[c.Name] = true
	}
}
