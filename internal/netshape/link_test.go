//go:build linux

package netshape_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/netshape"
)

// The test binary plays both ends of a transfer in the namespaces, as its own processes: a
// receiver in the cloud namespace that answers the SHA-256 of what it read, and a sender in
// the site namespace.
func TestMain(m *testing.M) {
	switch os.Getenv("NETSHAPE_ROLE") {
	case "receiver":
		receive(os.Getenv("NETSHAPE_ADDR"))
		return
	case "sender":
		n, _ := strconv.Atoi(os.Getenv("NETSHAPE_BYTES"))
		send(os.Getenv("NETSHAPE_ADDR"), n)
		return
	case "echo":
		echo(os.Getenv("NETSHAPE_ADDR"))
		return
	case "pinger":
		n, _ := strconv.Atoi(os.Getenv("NETSHAPE_COUNT"))
		pinger(os.Getenv("NETSHAPE_ADDR"), n)
		return
	}
	os.Exit(m.Run())
}

func receive(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("listening")
	c, err := ln.Accept()
	if err != nil {
		os.Exit(1)
	}
	h := sha256.New()
	n, _ := io.Copy(h, c)
	fmt.Fprintf(c, "%d %s\n", n, hex.EncodeToString(h.Sum(nil)))
	c.Close()
}

func send(addr string, n int) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	data := payload(n)
	start := time.Now()
	c.Write(data)
	c.(*net.TCPConn).CloseWrite()
	answer, _ := bufio.NewReader(c).ReadString('\n')
	fmt.Printf("%s %d\n", strings.TrimSpace(answer), time.Since(start).Microseconds())
}

// echo answers every UDP datagram with itself.
func echo(addr string) {
	c, err := net.ListenPacket("udp", addr)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("listening")
	buf := make([]byte, 2048)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return
		}
		c.WriteTo(buf[:n], from)
	}
}

// pinger sends count datagrams one at a time and prints each round trip in microseconds, or
// "lost" when no answer came within a second.
func pinger(addr string, count int) {
	c, err := net.Dial("udp", addr)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	buf := make([]byte, 64)
	for i := range count {
		msg := []byte(fmt.Sprintf("ping %d", i))
		start := time.Now()
		c.Write(msg)
		c.SetReadDeadline(start.Add(time.Second))
		for {
			n, err := c.Read(buf)
			if err != nil {
				fmt.Println("lost")
				break
			}
			if string(buf[:n]) == string(msg) {
				fmt.Println(time.Since(start).Microseconds())
				break
			}
		}
	}
}

// payload is n bytes that every process makes alike.
func payload(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func openLink(t testing.TB, cfg netshape.Config) *netshape.Link {
	t.Helper()
	if err := netshape.Available(); err != nil {
		t.Skipf("NOT POSSIBLE HERE: %v (the test command runs as root, where it runs)", err)
	}
	l, err := netshape.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l
}

// transfer sends n bytes from the site to the cloud over TCP and returns how long the sender
// took until the receiver's answer; it fails the test unless every byte arrived intact.
func transfer(t testing.TB, l *netshape.Link, n int) time.Duration {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(l.CloudAddr.String(), "7000")
	recv := l.Command(l.Cloud, self)
	recv.Env = append(os.Environ(), "NETSHAPE_ROLE=receiver", "NETSHAPE_ADDR="+addr)
	out, err := recv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := recv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { recv.Process.Kill(); recv.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "listening\n" {
		t.Fatalf("receiver: %q", line)
	}
	snd := l.Command(l.Site, self)
	snd.Env = append(os.Environ(), "NETSHAPE_ROLE=sender", "NETSHAPE_ADDR="+addr, "NETSHAPE_BYTES="+strconv.Itoa(n))
	got, err := snd.Output()
	if err != nil {
		t.Fatalf("sender: %v: %s", err, got)
	}
	sum := sha256.Sum256(payload(n))
	var count int
	var hash string
	var micros int64
	if _, err := fmt.Sscanf(string(got), "%d %s %d", &count, &hash, &micros); err != nil || count != n || hash != hex.EncodeToString(sum[:]) {
		t.Fatalf("the receiver read %q, want %d bytes of SHA-256 %x", got, n, sum)
	}
	return time.Duration(micros) * time.Microsecond
}

// ping returns the round trips of count UDP echoes from the site to the cloud, the lost ones
// left out.
func ping(t testing.TB, l *netshape.Link, count int) []time.Duration {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(l.CloudAddr.String(), "7001")
	srv := l.Command(l.Cloud, self)
	srv.Env = append(os.Environ(), "NETSHAPE_ROLE=echo", "NETSHAPE_ADDR="+addr)
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "listening\n" {
		t.Fatalf("echo: %q", line)
	}
	cli := l.Command(l.Site, self)
	cli.Env = append(os.Environ(), "NETSHAPE_ROLE=pinger", "NETSHAPE_ADDR="+addr, "NETSHAPE_COUNT="+strconv.Itoa(count))
	got, err := cli.Output()
	if err != nil {
		t.Fatalf("pinger: %v: %s", err, got)
	}
	var rtts []time.Duration
	for _, line := range strings.Fields(string(got)) {
		if us, err := strconv.ParseInt(line, 10, 64); err == nil {
			rtts = append(rtts, time.Duration(us)*time.Microsecond)
		}
	}
	return rtts
}

// Unimpaired, the link carries TCP intact, like a wire.
func TestAnUnimpairedLinkCarriesTCP(t *testing.T) {
	l := openLink(t, netshape.Config{})
	transfer(t, l, 4<<20)
	up, down := l.Stats()
	if up.Delivered == 0 || down.Delivered == 0 || up.Lost+up.TailDrops+down.Lost+down.TailDrops != 0 {
		t.Fatalf("stats up %+v down %+v: packets both ways, none dropped", up, down)
	}
}

// Delay and loss as configured: every round trip at least both delays; a 2% lossy, rate
// limited link still carries TCP intact, and never faster than its rate.
func TestDelayRateAndLoss(t *testing.T) {
	p := netshape.Profile{Rate: 2_000_000, Delay: 50 * time.Millisecond, Loss: 0.02}
	l := openLink(t, netshape.Config{Up: p, Down: p, Seed: 3})
	rtts := ping(t, l, 5)
	if len(rtts) < 3 {
		t.Fatalf("%d of 5 pings answered at 2%% loss", len(rtts))
	}
	for _, rtt := range rtts {
		if rtt < 100*time.Millisecond {
			t.Fatalf("a round trip of %v, under the two delays of 50 ms", rtt)
		}
	}
	const n = 500_000
	took := transfer(t, l, n)
	if least := time.Duration(n * 8 * int64(time.Second) / p.Rate); took < least {
		t.Fatalf("%d bytes in %v: faster than 2 Mbit/s allows (%v)", n, took, least)
	}
	if up, _ := l.Stats(); up.Lost == 0 {
		t.Fatalf("no packet lost at 2%%: %+v", up)
	}
}

// A cut link carries nothing; restored, it carries again.
func TestACutLinkComesBack(t *testing.T) {
	l := openLink(t, netshape.Config{})
	l.SetProfiles(netshape.Profile{Down: true}, netshape.Profile{Down: true})
	if rtts := ping(t, l, 2); len(rtts) != 0 {
		t.Fatalf("pings answered over a cut link: %v", rtts)
	}
	l.SetProfiles(netshape.Profile{}, netshape.Profile{})
	if rtts := ping(t, l, 2); len(rtts) != 2 {
		t.Fatalf("%d of 2 pings answered once the link came back", len(rtts))
	}
}

// The shaped link with no impairment against a plain veth pair between the same namespaces,
// in the same run: what a shaped benchmark's figures owe to the helper itself. Reported as
// the ratio of the TUN link's throughput to the veth's (1 is a perfect match).
func BenchmarkUnimpairedVersusVeth(b *testing.B) {
	const n = 32 << 20
	veth := openLink(b, netshape.Config{Veth: true})
	tun := openLink(b, netshape.Config{})
	var vethTook, tunTook time.Duration
	for b.Loop() {
		vethTook += transfer(b, veth, n)
		tunTook += transfer(b, tun, n)
	}
	b.StopTimer()
	vethRTT, tunRTT := median(ping(b, veth, 20)), median(ping(b, tun, 20))
	b.SetBytes(2 * n)
	b.ReportMetric(float64(vethTook)/float64(tunTook), "tun/veth-throughput")
	b.ReportMetric(float64(tunRTT)/float64(vethRTT), "tun/veth-rtt")
	b.ReportMetric(float64(tunRTT.Microseconds()), "tun-rtt-µs")
	b.ReportMetric(float64(vethRTT.Microseconds()), "veth-rtt-µs")
	b.ReportMetric(float64(n)*float64(b.N)/tunTook.Seconds()/1e6, "tun-MB/s")
	b.ReportMetric(float64(n)*float64(b.N)/vethTook.Seconds()/1e6, "veth-MB/s")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// The test's own connections, made in the site's namespace with Dialer, cross the link to a
// process in the cloud's, and the test process stays where it was.
func TestDialerMakesSocketsInTheNamespace(t *testing.T) {
	l := openLink(t, netshape.Config{})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(l.CloudAddr.String(), "7002")
	recv := l.Command(l.Cloud, self)
	recv.Env = append(os.Environ(), "NETSHAPE_ROLE=receiver", "NETSHAPE_ADDR="+addr)
	out, _ := recv.StdoutPipe()
	if err := recv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { recv.Process.Kill(); recv.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "listening\n" {
		t.Fatalf("receiver: %q", line)
	}
	conn, err := l.Dialer(l.Site)(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("through the link"))
	conn.(*net.TCPConn).CloseWrite()
	answer, _ := bufio.NewReader(conn).ReadString('\n')
	want := sha256.Sum256([]byte("through the link"))
	if answer != fmt.Sprintf("16 %x\n", want) {
		t.Fatalf("the receiver answered %q", answer)
	}
	if up, _ := l.Stats(); up.Delivered == 0 {
		t.Fatal("the connection did not cross the link")
	}
}

// A veth link partitioned and healed: the test's listener in the cloud's namespace (Listen)
// takes a connection from the site's; with the site's end down nothing crosses and a new
// connection cannot be made, and when it is up again the same connection carries on.
func TestListenAndAPartitionedVeth(t *testing.T) {
	l := openLink(t, netshape.Config{Veth: true})
	ln, err := l.Listen(l.Cloud, "tcp", net.JoinHostPort(l.CloudAddr.String(), "7003"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := l.Dialer(l.Site)(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	read := func(within time.Duration) (string, error) {
		server.SetReadDeadline(time.Now().Add(within))
		buf := make([]byte, 64)
		n, err := server.Read(buf)
		return string(buf[:n]), err
	}
	conn.Write([]byte("before"))
	if got, err := read(5 * time.Second); got != "before" {
		t.Fatalf("before the partition: %q %v", got, err)
	}

	if err := l.SetSiteUp(false); err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte("during"))
	if got, err := read(time.Second); err == nil {
		t.Fatalf("%q crossed a partitioned link", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if c, err := l.Dialer(l.Site)(ctx, "tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Fatal("a new connection was made across the partition")
	}

	if err := l.SetSiteUp(true); err != nil {
		t.Fatal(err)
	}
	if got, err := read(10 * time.Second); got != "during" {
		t.Fatalf("after the partition healed: %q %v, want what was sent during it", got, err)
	}
}
