// Command w1client is a client process of BenchmarkClusterW1 (make bench-cluster-w1,
// cmd/fleetgate/cluster_w1_bench_test.go), which builds it and runs one per replica: a
// process may hold at most 20,000 descriptors here, fewer than 20,000 sockets need. It opens
// -sockets fleet KPI sockets (W1) at -url as a wall of kiosks does, with one bearer (in
// W1CLIENT_BEARER, not on the command line), says "up" once every socket is open, reads
// frames until its standard input closes, then writes what each socket received to -out
// (gob: the benchmark's w1Result) and exits 0. A socket that cannot open or a frame that
// does not decode ends it with status 1 and the reason on its standard output.
//
// A receipt is a frame's tick and its arrival. The ticks are told apart by the frames
// themselves: the updateTime of the -clock robot's KPI, which each replica's hub stamps with
// its tick (see the benchmark).
//
// It is a bench tool, outside the fleetgate binary; its test runs it against a real server.
package main

import (
	"bufio"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/maphash"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// bearerEnv holds the sockets' bearer: a command line is visible to every user of the machine.
const bearerEnv = "W1CLIENT_BEARER"

// job is what the process is to do.
type job struct {
	URL, Bearer  string
	Clock, Robot string // the robot whose KPI's updateTime is the tick, and the simulated one
	Sockets      int
}

// result is what the sockets received; the benchmark's w1Result has the same fields (gob
// matches them by name).
type result struct {
	Err          string // a frame that did not decode
	WithoutRobot int64  // distinct frames without the simulated robot's three KPIs
	WithoutClock int64  // distinct frames without the clock's KPI
	Sockets      []socketResult
}

type socketResult struct {
	Dropped  bool // the socket ended before the process closed it
	Receipts []receipt
}

// receipt is a frame as a socket got it: its replica's tick and the arrival, in Unix ns.
type receipt struct{ Tick, At int64 }

func main() {
	var j job
	flag.StringVar(&j.URL, "url", "", "the W1 socket's URL")
	flag.StringVar(&j.Clock, "clock", "", "the id of the robot whose KPI tells the tick")
	flag.StringVar(&j.Robot, "robot", "", "the id of the simulated robot (three KPIs in every frame)")
	flag.IntVar(&j.Sockets, "sockets", 1, "sockets to open")
	out := flag.String("out", "", "the file the result goes to")
	flag.Parse()
	j.Bearer = os.Getenv(bearerEnv)
	if j.URL == "" || *out == "" {
		fmt.Println("w1client: -url and -out are required")
		os.Exit(2)
	}
	if err := checkFiles(j.Sockets); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	res, err := run(j, os.Stdin, os.Stdout)
	if err == nil {
		err = write(*out, res)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}

// checkFiles fails when the process may not open enough files for n sockets. Go raised the
// soft limit to the hard one at start; that is all there is.
func checkFiles(n int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < uint64(n)+256 {
		return fmt.Errorf("%d sockets need %d open files, the limit is %d", n, n+256, lim.Cur)
	}
	return nil
}

// run opens the job's sockets, says "up" on stdout, reads frames until stdin ends, and
// returns what each socket received.
func run(j job, stdin io.Reader, stdout io.Writer) (result, error) {
	frames := &frames{clock: j.Clock, robot: j.Robot, seed: maphash.MakeSeed()}
	clients := make([]*client, j.Sockets)
	var stopping atomic.Bool
	var readers, dials sync.WaitGroup
	var failed atomic.Value
	sem := make(chan struct{}, 16) // dials in flight
	for i := range clients {
		sem <- struct{}{}
		dials.Add(1)
		go func() {
			defer dials.Done()
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, _, err := websocket.Dial(ctx, j.URL, &websocket.DialOptions{
				HTTPHeader: http.Header{"Authorization": {"bearer " + j.Bearer}}, CompressionMode: websocket.CompressionDisabled})
			if err != nil {
				failed.CompareAndSwap(nil, fmt.Errorf("a socket could not open: socket %d: %w", i, err))
				return
			}
			conn.SetReadLimit(64 << 10)
			c := &client{conn: conn, receipts: make([]receipt, 0, 64)}
			clients[i] = c
			readers.Add(1)
			go func() {
				defer readers.Done()
				c.read(frames, &stopping)
			}()
		}()
	}
	dials.Wait()
	closeAll := func() {
		stopping.Store(true)
		for _, c := range clients {
			if c != nil {
				c.conn.CloseNow()
			}
		}
		readers.Wait()
	}
	if err, _ := failed.Load().(error); err != nil {
		closeAll()
		return result{}, err
	}
	fmt.Fprintln(stdout, "up")
	io.Copy(io.Discard, stdin)
	closeAll()

	res := result{WithoutRobot: frames.withoutRobot.Load(), WithoutClock: frames.withoutClock.Load()}
	if err, _ := frames.err.Load().(error); err != nil {
		res.Err = err.Error()
	}
	for _, c := range clients {
		res.Sockets = append(res.Sockets, socketResult{Dropped: c.dropped, Receipts: c.receipts})
	}
	return res, nil
}

func write(path string, res result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = gob.NewEncoder(w).Encode(res)
	err = errors.Join(err, w.Flush(), f.Close())
	if err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	return nil
}

// client is one kiosk's socket and what it received.
type client struct {
	conn     *websocket.Conn
	receipts []receipt
	dropped  bool // the socket ended before the process closed it
}

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// read takes frames until the socket ends, with the clients' CPU kept small beside the
// replicas they measure: a frame is read into a pooled buffer and looked up by its hash
// (every socket of a replica gets the same bytes for a tick).
func (c *client) read(frames *frames, stopping *atomic.Bool) {
	for {
		_, r, err := c.conn.Reader(context.Background())
		if err != nil {
			c.dropped = !stopping.Load()
			return
		}
		bp := buffers.Get().(*[]byte)
		buf := (*bp)[:0]
		for {
			if len(buf) == cap(buf) {
				buf = slices.Grow(buf, len(buf))
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				break
			} else if err != nil {
				c.dropped = !stopping.Load()
				return
			}
		}
		at := time.Now().UnixNano()
		if tick, ok := frames.tickOf(buf); ok {
			c.receipts = append(c.receipts, receipt{Tick: tick, At: at})
		}
		*bp = buf
		buffers.Put(bp)
	}
}

// frames decodes each distinct frame once and remembers the tick it belongs to: the
// updateTime of the clock's KPI.
type frames struct {
	clock, robot string
	seed         maphash.Seed
	ticks        sync.Map // frame hash -> tick, Unix ns; 0: a frame without the clock
	err          atomic.Value
	withoutRobot atomic.Int64
	withoutClock atomic.Int64
}

func (f *frames) tickOf(frame []byte) (int64, bool) {
	h := maphash.Bytes(f.seed, frame)
	if t, ok := f.ticks.Load(h); ok {
		return t.(int64), t.(int64) != 0
	}
	var dto struct {
		Updates []struct {
			BasicData struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"basicData"`
			UpdateTime time.Time `json:"updateTime"`
			Metric     struct {
				Name     string          `json:"name"`
				DataType string          `json:"dataType"`
				Value    json.RawMessage `json:"value"`
			} `json:"metric"`
		} `json:"updates"`
	}
	if err := json.Unmarshal(frame, &dto); err != nil {
		f.err.CompareAndSwap(nil, fmt.Errorf("a frame that does not decode: %w: %.200s", err, frame))
		return 0, false
	}
	var tick time.Time
	robotKPIs := 0
	for _, u := range dto.Updates {
		switch u.BasicData.ID {
		case f.clock:
			tick = u.UpdateTime
		case f.robot:
			robotKPIs++
		}
	}
	if robotKPIs != 3 {
		f.withoutRobot.Add(1)
	}
	if tick.IsZero() {
		f.withoutClock.Add(1) // the clock offline on that replica: receipts of no tick
		f.ticks.Store(h, int64(0))
		return 0, false
	}
	f.ticks.Store(h, tick.UnixNano())
	return tick.UnixNano(), true
}
