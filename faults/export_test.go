package faults

import "github.com/tidwall/gjson"

func gjsonValid(b []byte) bool { return gjson.ValidBytes(b) }
