// Command kpiclient is the client process of BenchmarkKPIIdleMemory
// (server/api/kpi_ws_bench_test.go), which builds it: the sockets' client ends live in a
// process of their own, so the server's RSS growth is the server's alone. It opens -sockets
// fleet KPI sockets (W1/W2) at -url with one bearer (in KPICLIENT_BEARER, not on the command
// line), reads and drops their frames, says "connected" once every socket is open, and closes
// them and exits 0 when its standard input closes. A socket that cannot open ends it with
// status 1 and the reason on its standard output.
//
// It is a bench tool, outside the fleetgate binary; its test runs it against a real server.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// bearerEnv holds the sockets' bearer: a command line is visible to every user of the machine.
const bearerEnv = "KPICLIENT_BEARER"

func main() {
	url := flag.String("url", "", "the KPI socket's URL")
	n := flag.Int("sockets", 1, "sockets to open")
	flag.Parse()
	if *url == "" {
		fmt.Println("kpiclient: -url is required")
		os.Exit(2)
	}
	if err := run(*url, os.Getenv(bearerEnv), *n, os.Stdin, os.Stdout); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}

// run opens n sockets, says "connected" on stdout, and holds them (reading every frame, as a
// kiosk does) until stdin ends.
func run(url, bearer string, n int, stdin io.Reader, stdout io.Writer) error {
	header := http.Header{"Authorization": {"bearer " + bearer}}
	conns := make([]*websocket.Conn, n)
	var failed atomic.Value
	var readers sync.WaitGroup
	sem := make(chan struct{}, 16) // dials in flight
	var dials sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		dials.Add(1)
		go func() {
			defer dials.Done()
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header})
			if err != nil {
				failed.CompareAndSwap(nil, fmt.Errorf("dial failed: socket %d: %w", i, err))
				return
			}
			conns[i] = c
			readers.Add(1)
			go func() {
				defer readers.Done()
				for {
					if _, _, err := c.Read(context.Background()); err != nil {
						return
					}
				}
			}()
		}()
	}
	dials.Wait()
	err, _ := failed.Load().(error)
	if err == nil {
		fmt.Fprintln(stdout, "connected")
		io.Copy(io.Discard, stdin)
	}
	for _, c := range conns {
		if c != nil {
			c.CloseNow()
		}
	}
	readers.Wait()
	return err
}
