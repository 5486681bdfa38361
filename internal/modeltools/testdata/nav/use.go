package nav

// Both is the total of a square and a circle.
func Both() float64 {
	return Total([]Shape{Square{Side: 2}, Circle{R: 1}})
}

// Twice is Both, twice.
func Twice() float64 {
	return Total(nil) + Both() + Both()
}
