package benchmath_test

import (
	"fmt"

	"github.com/benchwright/benchwright/internal/benchmath"
)

func ExampleCompare() {
	// Two identical machines, three repetitions each: issue 44's 1.09x.
	v, err := benchmath.Compare([]float64{1000, 1030, 1060}, []float64{1085, 1120, 1150}, benchmath.DefaultOptions)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.2fx %s\n%s\n", v.Ratio, v.Mark(), v)
	// Output:
	// 1.09x ~
	// ~ not decided: p=0.10 with 3 vs 3; 6 a side would decide a change of 8.5 % at this spread
}

func ExampleTable() {
	base := []float64{100, 101, 99, 102, 98, 100.5, 99.5, 101.5}
	step, err := benchmath.Compare(base, []float64{110, 111, 109, 112, 108, 110.5, 109.5, 111.5}, benchmath.DefaultOptions)
	if err != nil {
		panic(err)
	}
	same, err := benchmath.Compare(base, []float64{100.2, 100.8, 99.1, 101.7, 98.4, 100.1, 99.9, 101.2}, benchmath.DefaultOptions)
	if err != nil {
		panic(err)
	}
	for _, v := range benchmath.Table([]benchmath.Verdict{step, same, same}) {
		fmt.Println(v)
	}
	// Output:
	// different: +10 % [+8.4 % to +12 %] (95 % interval), p=0.00016 (0.00047 after FDR over 3) with 8 vs 8
	// ~ not decided: p=1.00 with 8 vs 8; more than 1000 a side would be needed to decide a change of 0.00 % at this spread
	// ~ not decided: p=1.00 with 8 vs 8; more than 1000 a side would be needed to decide a change of 0.00 % at this spread
}
