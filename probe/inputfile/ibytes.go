package inputfile

import (
	"math"
	"strconv"
)

// ibytes is a size in IEC units with two significant digits at least:
// "9 B", "1.5 KiB", "16 MiB", "1.0 GiB".
func ibytes(n uint64) string {
	if n < 10 {
		return strconv.FormatUint(n, 10) + " B"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	e := int(math.Floor(math.Log(float64(n)) / math.Log(1024)))
	e = min(e, len(units)-1)
	v := float64(n) / math.Pow(1024, float64(e))
	digits := max(2-len(strconv.Itoa(int(v))), 0)
	scale := math.Pow10(digits)
	r := math.Floor(v*scale+0.5) / scale
	if grown := len(strconv.Itoa(int(r))) - len(strconv.Itoa(int(v))); grown > 0 {
		digits = max(digits-grown, 0) // 9.96 rounded to 10.0: one decimal fewer
	}
	return strconv.FormatFloat(r, 'f', digits, 64) + " " + units[e]
}
