//go:build !linux

package api

import "context"

func setNotSentLowat(context.Context) {}
