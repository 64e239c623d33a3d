// A Go program with known stacks for the Go stepper and the pclntab reader
// (tests/cli/go_unwind_test.cpp, tests/binary/go_pclntab_test.cpp).
//
//	known_go leaf SECONDS     goroutines: worker -> a -> b -> c -> leaf (leaf calls nothing: frameless)
//	known_go recurse SECONDS  goroutines: worker -> recurse x 201 -> leaf
//	known_go cgo SECONDS      goroutines: worker -> C.c_work -> c_spin (C code on the system stack)
//
// The worker reads the clock only every 2^8 iterations: time.Now runs on the
// system stack (a stack switch), so its samples do not end at the bottom.
package main

/*
__attribute__((noinline)) static unsigned long c_spin(unsigned long n) {
	unsigned long x = 0;
	for (unsigned long i = 0; i < n; ++i) { x += i * 2654435761u; __asm__ volatile("" : "+r"(x)); }
	return x;
}
__attribute__((noinline)) static unsigned long c_work(unsigned long n) { return c_spin(n) + 1; }
*/
import "C"

import (
	"os"
	"strconv"
	"sync"
	"time"
)

var sink uint64

//go:noinline
func leaf(n uint64) uint64 {
	x := n
	for i := uint64(0); i < 4096; i++ {
		x = x*6364136223846793005 + 1442695040888963407 // @go-leaf-loop
	}
	return x
}

//go:noinline
func c(n uint64) uint64 { return leaf(n) + 3 }

//go:noinline
func b(n uint64) uint64 { return c(n) + 2 }

//go:noinline
func a(n uint64) uint64 { return b(n) + 1 }

//go:noinline
func recurse(depth int, n uint64) uint64 {
	if depth == 0 {
		return leaf(n)
	}
	return recurse(depth-1, n) + 1
}

var (
	mode     = "leaf"
	deadline time.Time
	wg       sync.WaitGroup
)

// The goroutine's first function (`go worker()` without arguments starts
// it right above runtime.goexit).
func worker() {
	defer wg.Done()
	for i := uint64(0); ; i++ {
		switch mode {
		case "recurse":
			sink += recurse(200, i)
		case "cgo":
			sink += uint64(C.c_work(C.ulong(4096)))
		default:
			sink += a(i)
		}
		if i&(1<<8-1) == 0 && time.Now().After(deadline) {
			return
		}
	}
}

func main() {
	seconds := 1.0
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if len(os.Args) > 2 {
		if s, err := strconv.ParseFloat(os.Args[2], 64); err == nil {
			seconds = s
		}
	}
	deadline = time.Now().Add(time.Duration(seconds * float64(time.Second)))
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go worker()
	}
	wg.Wait()
}
