// Package nav is a small module with known definitions, references, an interface with two
// implementations and callers: the model's code tools are tested on it against real gopls.
package nav

// Shape is anything with an area.
type Shape interface {
	Area() float64
}

// Square is a Shape.
type Square struct{ Side float64 }

// Area of a square.
func (s Square) Area() float64 { return s.Side * s.Side }

// Circle is a Shape.
type Circle struct{ R float64 }

// Area of a circle, roughly.
func (c Circle) Area() float64 { return 3 * c.R * c.R }

// Total adds the areas.
func Total(shapes []Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}
