package testutil

import (
	"reflect"
	"time"
)

// Fill sets every exported field of the value v (settable; recursively
// through structs and slices) to a value derived from seed: strings to
// str(seed'), ints to seed'×7+1, floats to 0.5, bools to seed' odd,
// slices to two elements, time.Time to a time in UTC+2 with seed'
// microseconds+7 ns, seed' derived from seed and the field's position.
// Tests of encoders fill a struct with it so that a field added later is
// covered without editing them.
func Fill(v reflect.Value, seed int, str func(int) string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(str(seed))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(seed*7 + 1))
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Bool:
		v.SetBool(seed%2 == 1)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			Fill(s.Index(i), seed+i+1, str)
		}
		v.Set(s)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			loc := time.FixedZone("", 2*3600)
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, seed*1000+7, loc)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				Fill(v.Field(i), seed*3+i, str)
			}
		}
	}
}
