//go:build !linux

package api

import "context"

func setNotSentLowat(context.Context) {}

func setNotSentLowatTo(context.Context, int) {}
