package rosnode

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/source/ros1/tcpros"
	"github.com/fleetgate/fleetgate/internal/source/ros1/xmlrpc"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
)

// logBuffer collects log lines for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startNode(t *testing.T, m *rostest.Master, name string) (*Node, *logBuffer) {
	t.Helper()
	var logs logBuffer
	n, err := Start(Config{Name: name, MasterURI: m.URI, Host: "127.0.0.1",
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n, &logs
}

func stringSpec(t *testing.T) *rosmsg.Spec {
	s, ok := rosmsg.Lookup("std_msgs/String")
	if !ok {
		t.Fatal("no std_msgs/String")
	}
	return s
}

// rosString is a std_msgs/String on the wire.
func rosString(s string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
}

const talker = `
import rospy, sys
from std_msgs.msg import String
rospy.init_node('talker', anonymous=True)
latch = len(sys.argv) > 2 and sys.argv[2] == 'latch'
pub = rospy.Publisher(sys.argv[1], String, queue_size=10, latch=latch)
print('ready', flush=True)
if latch:
    pub.publish(String('latched'))
    rospy.spin()
else:
    i = 0
    r = rospy.Rate(20)
    while not rospy.is_shutdown():
        pub.publish(String('hello %d' % i))
        i += 1
        r.sleep()
`

const listener = `
import rospy, sys
from std_msgs.msg import String
rospy.init_node('listener', anonymous=True)
def cb(m):
    print('got ' + m.data, flush=True)
rospy.Subscriber(sys.argv[1], String, cb)
print('ready', flush=True)
rospy.spin()
`

func TestSubscribeToRospy(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, talker, "/chatter")
	n, _ := startNode(t, m, "/fleetgate_sub")
	spec := stringSpec(t)
	got := make(chan string, 100)
	sub, err := n.Subscribe(context.Background(), SubscribeOptions{
		Topic: "/chatter", Type: spec.Type, MD5: spec.MD5, Definition: spec.FullText,
		OnMessage: func(msg []byte, from Connection) {
			if from.Type != "std_msgs/String" || !strings.HasPrefix(from.Publisher, "/talker") {
				t.Errorf("connection %+v", from)
			}
			select {
			case got <- string(msg[4:]):
			default:
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case s := <-got:
			if !strings.HasPrefix(s, "hello ") {
				t.Fatalf("got %q", s)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no message from the rospy talker")
		}
	}
	if sub.Publishers() != 1 {
		t.Errorf("%d publishers connected", sub.Publishers())
	}
	// The master resolves our node name to our API, and lists our topic with its type.
	if uri, err := n.Master().LookupNode(context.Background(), n.Name()); err != nil || uri != n.URI() {
		t.Errorf("lookupNode: %q, %v; want %q", uri, err, n.URI())
	}
	if types, err := n.Master().GetTopicTypes(context.Background()); err != nil || types["/chatter"] != "std_msgs/String" {
		t.Errorf("getTopicTypes: %v, %v", types, err)
	}
	// The node API tells rosnode what it is connected to.
	var c xmlrpc.Client
	v, err := call(context.Background(), &c, n.URI(), "getBusInfo", "/test")
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := v.([]any); len(info) != 1 || !strings.Contains(fmt.Sprint(info[0]), "/chatter") {
		t.Errorf("getBusInfo %v", v)
	}
	v, err = call(context.Background(), &c, n.URI(), "getSubscriptions", "/test")
	if err != nil || fmt.Sprint(v) != "[[/chatter std_msgs/String]]" {
		t.Errorf("getSubscriptions %v, %v", v, err)
	}
	sub.Close()
	st, err := n.Master().GetSystemState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tn := range st.Subscribers {
		if tn.Topic == "/chatter" && len(tn.Nodes) > 0 {
			t.Errorf("still registered as subscriber: %v", tn)
		}
	}
}

func TestLatchedTopic(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, talker, "/latched", "latch")
	n, _ := startNode(t, m, "/fleetgate_latch")
	spec := stringSpec(t)
	got := make(chan Connection, 1)
	_, err := n.Subscribe(context.Background(), SubscribeOptions{
		Topic: "/latched", Type: spec.Type, MD5: spec.MD5,
		OnMessage: func(msg []byte, from Connection) {
			if string(msg[4:]) == "latched" {
				got <- from
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case from := <-got:
		if !from.Latching {
			t.Error("publisher did not say latching=1")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the latched message did not come")
	}
}

// A message published right after registering reaches a subscriber that connects a moment
// later (Linger), and later ones follow.
func TestPublishToRospy(t *testing.T) {
	m := rostest.StartMaster(t)
	l := m.Python(t, listener, "/chatter_in")
	n, _ := startNode(t, m, "/fleetgate_pub")
	spec := stringSpec(t)
	pub, err := n.Advertise(context.Background(), PublishOptions{
		Topic: "/chatter_in", Type: spec.Type, MD5: spec.MD5, Definition: spec.FullText, Linger: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(rosString("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WaitLine(10*time.Second, func(s string) bool { return s == "got first" }); err != nil {
		t.Fatalf("first message: %v\n%s", err, l.Stderr())
	}
	pub.Publish(rosString("second"))
	if _, err := l.WaitLine(10*time.Second, func(s string) bool { return s == "got second" }); err != nil {
		t.Fatalf("second message: %v", err)
	}
	if pub.Subscribers() != 1 {
		t.Errorf("%d subscribers", pub.Subscribers())
	}
}

// A subscriber with another md5sum is refused with an error header, and our subscription to
// a publisher of another type is refused with one clear log line naming topic and types.
func TestMD5Mismatch(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, talker, "/typed")
	n, logs := startNode(t, m, "/fleetgate_md5")
	got := make(chan struct{}, 1)
	_, err := n.Subscribe(context.Background(), SubscribeOptions{
		Topic: "/typed", Type: "std_msgs/String", MD5: "0123456789abcdef0123456789abcdef",
		OnMessage: func([]byte, Connection) { got <- struct{}{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	rostest.Eventually(t, 10*time.Second, "the refusal is logged", func() bool {
		return strings.Contains(logs.String(), "refused the subscription to /typed as std_msgs/String")
	})
	select {
	case <-got:
		t.Error("a message came through an md5 mismatch")
	default:
	}

	spec := stringSpec(t)
	if _, err := n.Advertise(context.Background(), PublishOptions{Topic: "/ours", Type: spec.Type, MD5: spec.MD5}); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(n.tcprosPort()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tcpros.WriteHeader(c, tcpros.Header{"callerid": "/x", "topic": "/ours", "md5sum": "ffff", "type": "std_msgs/Int32"})
	h, err := tcpros.ReadHeader(c)
	if err != nil || !strings.Contains(h["error"], "std_msgs/Int32/ffff") {
		t.Errorf("got %v, %v", h, err)
	}
}

// Malformed or hostile peers on the TCPROS port do not stop the node.
func TestMalformedSubscribers(t *testing.T) {
	m := rostest.StartMaster(t)
	n, _ := startNode(t, m, "/fleetgate_bad")
	spec := stringSpec(t)
	pub, err := n.Advertise(context.Background(), PublishOptions{Topic: "/ok", Type: spec.Type, MD5: spec.MD5, Latch: true})
	if err != nil {
		t.Fatal(err)
	}
	pub.Publish(rosString("still here"))
	addr := "127.0.0.1:" + strconv.Itoa(n.tcprosPort())
	for name, raw := range map[string][]byte{
		"huge header":     binary.LittleEndian.AppendUint32(nil, 0xffffffff),
		"garbage":         []byte("GET / HTTP/1.1\r\n\r\n"),
		"truncated field": append(binary.LittleEndian.AppendUint32(nil, 10), 50, 0, 0, 0, 'a'),
		"no topic":        tcpros.Header{"callerid": "/x", "md5sum": "*"}.Marshal(),
		"unknown topic":   tcpros.Header{"callerid": "/x", "md5sum": "*", "topic": "/nope"}.Marshal(),
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(raw)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var b [1]byte
		c.Read(b[:]) // an error header, or the node closes the connection
		c.Close()
		_ = name
	}
	// A well-behaved subscriber is still served, and gets the latched message.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	tcpros.WriteHeader(c, tcpros.Header{"callerid": "/x", "topic": "/ok", "md5sum": "*", "type": "*"})
	h, err := tcpros.ReadHeader(c)
	if err != nil || h["latching"] != "1" || h["md5sum"] != spec.MD5 {
		t.Fatalf("header %v, %v", h, err)
	}
	msg, err := tcpros.ReadMessage(c, 0, nil)
	if err != nil || string(msg[4:]) != "still here" {
		t.Fatalf("message %q, %v", msg, err)
	}
}

// A slow subscriber (one that never reads) does not block Publish.
func TestSlowSubscriberDoesNotBlock(t *testing.T) {
	m := rostest.StartMaster(t)
	n, _ := startNode(t, m, "/fleetgate_slow")
	spec := stringSpec(t)
	pub, err := n.Advertise(context.Background(), PublishOptions{Topic: "/big", Type: spec.Type, MD5: spec.MD5})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(n.tcprosPort()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tcpros.WriteHeader(c, tcpros.Header{"callerid": "/slow", "topic": "/big", "md5sum": "*"})
	if _, err := tcpros.ReadHeader(c); err != nil {
		t.Fatal(err)
	}
	rostest.Eventually(t, 5*time.Second, "the subscriber is connected", func() bool { return pub.Subscribers() == 1 })
	big := rosString(strings.Repeat("x", 1<<20))
	done := make(chan struct{})
	go func() {
		for range 200 { // 200 MiB: far beyond any socket buffer
			pub.Publish(big)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Publish blocked behind a subscriber that does not read")
	}
}

// After the master is killed and started again, Reregister puts our publications and
// subscriptions on the new master.
func TestReregisterAfterMasterRestart(t *testing.T) {
	m := rostest.StartMaster(t)
	n, _ := startNode(t, m, "/fleetgate_rereg")
	spec := stringSpec(t)
	ctx := context.Background()
	if _, err := n.Advertise(ctx, PublishOptions{Topic: "/out", Type: spec.Type, MD5: spec.MD5}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Subscribe(ctx, SubscribeOptions{Topic: "/in", Type: spec.Type, MD5: spec.MD5, OnMessage: func([]byte, Connection) {}}); err != nil {
		t.Fatal(err)
	}
	pid1, err := n.Master().GetPid(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m.Kill()
	m.Start()
	pid2, err := n.Master().GetPid(ctx)
	if err != nil || pid2 == pid1 {
		t.Fatalf("pid %d then %d, %v", pid1, pid2, err)
	}
	if err := n.Reregister(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := n.Master().GetSystemState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !hasNode(st.Publishers, "/out", n.Name()) || !hasNode(st.Subscribers, "/in", n.Name()) {
		t.Errorf("system state after re-registering: %+v", st)
	}
}

func hasNode(list []TopicNodes, topic, node string) bool {
	for _, tn := range list {
		if tn.Topic == topic {
			for _, n := range tn.Nodes {
				if n == node {
					return true
				}
			}
		}
	}
	return false
}

// fakePublisher is a hostile or broken ROS publisher: a node API that answers requestTopic,
// and a TCPROS port whose n-th connection gets behaviours[n] (the last one repeats).
type fakePublisher struct {
	api      string
	accepted chan int
}

func startFakePublisher(t *testing.T, m *rostest.Master, topic string, behaviours ...func(c net.Conn)) *fakePublisher {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tcp.Close() })
	fp := &fakePublisher{accepted: make(chan int, 100)}
	go func() {
		for n := 0; ; n++ {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			fp.accepted <- n
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := tcpros.ReadHeader(c); err != nil {
					return
				}
				behaviours[min(n, len(behaviours)-1)](c)
			}()
		}
	}()
	port := tcp.Addr().(*net.TCPAddr).Port
	h := &xmlrpc.Handler{Methods: map[string]xmlrpc.Method{
		"requestTopic": func(context.Context, []any) (any, error) {
			return []any{1, "", []any{"TCPROS", "127.0.0.1", port}}, nil
		},
	}}
	apiLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(apiLn)
	t.Cleanup(func() { srv.Close() })
	fp.api = "http://" + apiLn.Addr().String() + "/"
	spec := stringSpec(t)
	if _, err := NewMaster(m.URI, "/fake_publisher").RegisterPublisher(context.Background(), topic, spec.Type, fp.api); err != nil {
		t.Fatal(err)
	}
	return fp
}

// A publisher that dies mid-message, one that announces 100 MiB, one with a malformed header
// and one that sends garbage where a header belongs: the subscription retries each time and
// reads the good message that finally comes; nothing grows without bound.
func TestBrokenPublishers(t *testing.T) {
	m := rostest.StartMaster(t)
	spec := stringSpec(t)
	good := tcpros.Header{"callerid": "/fake_publisher", "type": spec.Type, "md5sum": spec.MD5}
	startFakePublisher(t, m, "/flaky",
		func(c net.Conn) { // dies mid-message
			tcpros.WriteHeader(c, good)
			c.Write(binary.LittleEndian.AppendUint32(nil, 1000))
			c.Write(make([]byte, 10))
		},
		func(c net.Conn) { // a huge message length
			tcpros.WriteHeader(c, good)
			c.Write(binary.LittleEndian.AppendUint32(nil, 100<<20))
			c.Write(make([]byte, 1000))
			time.Sleep(time.Second)
		},
		func(c net.Conn) { // a header whose field runs past its end
			c.Write(append(binary.LittleEndian.AppendUint32(nil, 8), 100, 0, 0, 0, 'a', '=', 'b', 'c'))
		},
		func(c net.Conn) { c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n")) },
		func(c net.Conn) { // finally a good publisher
			tcpros.WriteHeader(c, good)
			tcpros.WriteMessage(c, rosString("finally"))
			time.Sleep(5 * time.Second)
		},
	)
	n, logs := startNode(t, m, "/fleetgate_flaky")
	got := make(chan string, 10)
	_, err := n.Subscribe(context.Background(), SubscribeOptions{
		Topic: "/flaky", Type: spec.Type, MD5: spec.MD5,
		OnMessage: func(msg []byte, _ Connection) { got <- string(msg[4:]) },
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "finally" {
			t.Errorf("got %q", s)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no message after the broken connections\n%s", logs.String())
	}
	for _, want := range []string{"unexpected EOF", "announced length over the cap", "malformed connection header"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not mention %q", want)
		}
	}
}

// A peer opening more connections than any robot has subscribers is refused past the cap.
func TestSubscriberCap(t *testing.T) {
	m := rostest.StartMaster(t)
	n, _ := startNode(t, m, "/fleetgate_cap")
	spec := stringSpec(t)
	pub, err := n.Advertise(context.Background(), PublishOptions{Topic: "/capped", Type: spec.Type, MD5: spec.MD5})
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(n.tcprosPort())
	dial := func() (tcpros.Header, error) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(10 * time.Second))
		tcpros.WriteHeader(c, tcpros.Header{"callerid": "/many", "topic": "/capped", "md5sum": "*"})
		return tcpros.ReadHeader(c)
	}
	for i := range maxSubscribers {
		if h, err := dial(); err != nil || h["error"] != "" {
			t.Fatalf("subscriber %d: %v %v", i, h, err)
		}
	}
	rostest.Eventually(t, 5*time.Second, "all connected", func() bool { return pub.Subscribers() == maxSubscribers })
	if h, err := dial(); err != nil || !strings.Contains(h["error"], "subscribers already") {
		t.Errorf("one too many: %v, %v", h, err)
	}
}

// A publisherUpdate listing 3,000 publishers (a hostile peer on the robot's network, which may
// call the node API unasked) makes the node connect to at most 64 of them, and costs the
// agent no more than 10 MB.
func TestPublisherUpdateFlood(t *testing.T) {
	m := rostest.StartMaster(t)
	n, logs := startNode(t, m, "/fleetgate_flood")
	spec := stringSpec(t)
	if _, err := n.Subscribe(context.Background(), SubscribeOptions{Topic: "/flood", Type: spec.Type, MD5: spec.MD5,
		OnMessage: func([]byte, Connection) {}}); err != nil {
		t.Fatal(err)
	}

	// One fake publisher behind 3,000 URIs: every requestTopic names a TCPROS port that
	// takes the connection and then sends nothing.
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tcp.Close() })
	var mu sync.Mutex
	accepted, asked := 0, map[string]bool{}
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted++
			mu.Unlock()
			t.Cleanup(func() { c.Close() })
		}
	}()
	port := tcp.Addr().(*net.TCPAddr).Port
	api := http.NewServeMux()
	api.Handle("/", &xmlrpc.Handler{Methods: map[string]xmlrpc.Method{
		"requestTopic": func(ctx context.Context, _ []any) (any, error) {
			return []any{1, "", []any{"TCPROS", "127.0.0.1", port}}, nil
		},
	}})
	apiLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path] = true
		mu.Unlock()
		api.ServeHTTP(w, r)
	})}
	go srv.Serve(apiLn)
	t.Cleanup(func() { srv.Close() })
	uris := make([]any, 3000)
	for i := range uris {
		uris[i] = fmt.Sprintf("http://%s/publisher%04d/", apiLn.Addr(), i)
	}

	before := heapAndStacks()
	var c xmlrpc.Client
	v, err := c.Call(context.Background(), n.URI(), "publisherUpdate", "/master", "/flood", uris)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := v.([]any); len(code) == 0 || code[0] != 1 {
		t.Fatalf("publisherUpdate answered %v", v)
	}
	// The node's own account, at once: no more than 64 connections are even begun.
	info, err := call(context.Background(), &c, n.URI(), "getBusInfo", "/test")
	if err != nil {
		t.Fatal(err)
	}
	if conns, _ := info.([]any); len(conns) != maxPublishers {
		t.Fatalf("the node keeps %d publisher connections for /flood, want %d", len(conns), maxPublishers)
	}
	rostest.Eventually(t, 20*time.Second, "64 publishers are connected", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return accepted >= maxPublishers
	})
	mu.Lock()
	gotAccepted, gotAsked := accepted, len(asked)
	mu.Unlock()
	if gotAccepted > maxPublishers || gotAsked > maxPublishers {
		t.Errorf("%d TCPROS connections, %d publishers asked; at most %d", gotAccepted, gotAsked, maxPublishers)
	}
	if after := heapAndStacks(); after > before+10<<20 {
		t.Errorf("the node grew from %d to %d bytes (heap and stacks): more than 10 MB", before, after)
	}
	if !strings.Contains(logs.String(), "more publishers than the agent connects to") {
		t.Error("the cut list is not logged")
	}
}

// heapAndStacks is the memory the process holds in its heap and goroutine stacks, after a
// collection.
func heapAndStacks() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}

// The node's servers listen on the address the node advertises, never on every interface:
// on the one a name resolves to, and on a ROS_IP that is not loopback.
func TestListensOnTheAdvertisedAddressOnly(t *testing.T) {
	m := rostest.StartMaster(t)
	hosts := []string{"localhost", "127.0.0.1"}
	if ip := nonLoopbackAddress(t); ip != "" {
		hosts = append(hosts, ip)
	}
	for i, host := range hosts {
		t.Run(host, func(t *testing.T) {
			n, err := Start(Config{Name: fmt.Sprintf("/fleetgate_bind%d", i), MasterURI: m.URI, Host: host})
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			want := host
			if host == "localhost" {
				want = ""
			}
			for _, ln := range []net.Listener{n.apiLn, n.tcpros} {
				ip := ln.Addr().(*net.TCPAddr).IP
				if ip.IsUnspecified() || want != "" && ip.String() != want || want == "" && !ip.IsLoopback() {
					t.Errorf("a server listens on %s; the node advertises %s", ln.Addr(), host)
				}
			}
			if !strings.Contains(n.URI(), host) {
				t.Errorf("the node advertises %s, not %s", n.URI(), host)
			}
		})
	}
	// An address that is not this machine's is refused at start, in words.
	if _, err := Start(Config{Name: "/fleetgate_elsewhere", MasterURI: m.URI, Host: "203.0.113.7"}); err == nil || !strings.Contains(err.Error(), "ROS_IP or ROS_HOSTNAME") {
		t.Errorf("a node advertising another machine's address started: %v", err)
	}
}

// nonLoopbackAddress is an IPv4 address of one of this machine's interfaces other than
// loopback, "" when it has none.
func nonLoopbackAddress(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
			return ipn.IP.String()
		}
	}
	return ""
}
