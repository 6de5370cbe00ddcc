//go:build !linux

package api

import (
	"context"
	"net"
)

func setNotSentLowatTo(context.Context, int) {}

func setNotSentLowatOn(*net.TCPConn, int) {}
