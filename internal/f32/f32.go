// Package f32 views little-endian float32 data in byte slices (vector
// index files, built-in model files) as []float32 without copying when
// the machine's byte order and the slice's alignment allow it.
package f32

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// NativeLittleEndian reports whether this machine stores float32s
// little-endian in memory, i.e. whether the files' bytes can be used in
// place.
var NativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// View returns the n little-endian float32s at the start of src (which
// holds at least 4n bytes): src itself seen as []float32 (length and
// capacity n) when NativeLittleEndian and src is 4-aligned, else a
// decoded copy. In the first case the result shares src's memory: the
// caller must not modify src while the result is in use.
func View(src []byte, n int) []float32 {
	if n == 0 {
		return nil
	}
	if NativeLittleEndian && uintptr(unsafe.Pointer(&src[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&src[0])), n)[:n:n]
	}
	dst := make([]float32, n)
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[i*4:]))
	}
	return dst
}

// Bytes returns the little-endian bytes of v (4 per float32): v's own
// memory when NativeLittleEndian, else an encoded copy.
func Bytes(v []float32) []byte {
	if NativeLittleEndian && len(v) > 0 {
		return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4)
	}
	out := make([]byte, 0, len(v)*4)
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}
