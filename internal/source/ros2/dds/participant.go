//go:build ros2

package dds

/*
#cgo pkg-config: CycloneDDS
#include <stdlib.h>
#include "rawcdr.h"

void fleetgate_log_to_go(void);

static dds_qos_t *fleetgate_qos(int reliable, int transient_local, int depth) {
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_MSECS(100));
	dds_qset_durability(q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
	dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
	dds_qset_data_representation(q, 1, &xcdr1);
	return q;
}

static dds_entity_t fleetgate_builtin_reader(dds_entity_t pp, int publications) {
	return dds_create_reader(pp, publications ? DDS_BUILTIN_TOPIC_DCPSPUBLICATION : DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, NULL, NULL);
}

static int32_t fleetgate_matched(dds_entity_t wr) {
	dds_publication_matched_status_t st;
	if (dds_get_publication_matched_status(wr, &st) < 0)
		return -1;
	return (int32_t) st.current_count;
}
*/
import "C"

import (
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unsafe"
)

// Available reports whether the binary has the DDS transport.
const Available = true

// Attachments of the participant's waitset; readers of topics take ids from firstReader.
const (
	attachPublications  = 1
	attachSubscriptions = 2
	attachGuard         = 3
	firstReader         = 100
)

// Participant is a DDS domain participant. One goroutine waits on its waitset and does
// every take: discovery events and samples are delivered from it, one at a time.
type Participant struct {
	cfg    Config
	log    *slog.Logger
	domain C.dds_entity_t
	pp     C.dds_entity_t
	ws     C.dds_entity_t
	guard  C.dds_entity_t
	pubs   C.dds_entity_t
	subs   C.dds_entity_t
	guid   [16]byte

	mu      sync.Mutex
	readers map[uint64]*Reader
	nextID  uint64
	closed  bool
	known   map[[2]uint64]Endpoint // (builtin reader, instance handle) → endpoint

	closeOnce sync.Once
	done      chan struct{}
}

// logToGo installs Cyclone's log sink once per process.
var logToGo sync.Once

func ddsErr(what string, rc C.dds_return_t) error {
	return fmt.Errorf("dds: %s: %s", what, C.GoString(C.dds_strretcode(rc)))
}

// Open creates the participant in cfg.Domain and starts discovery.
func Open(cfg Config) (*Participant, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxSample <= 0 {
		cfg.MaxSample = DefaultMaxSample
	}
	if cfg.Domain < 0 || cfg.Domain > 232 {
		return nil, fmt.Errorf("dds: domain id %d is not within 0..232", cfg.Domain)
	}
	C.rawcdr_set_max_sample(C.uint32_t(min(cfg.MaxSample, 1<<31)))
	cycloneLog.use(cfg.Logger)
	logToGo.Do(func() { C.fleetgate_log_to_go() })
	xml := C.CString(configXML(cfg))
	defer C.free(unsafe.Pointer(xml))
	p := &Participant{cfg: cfg, log: cfg.Logger, readers: map[uint64]*Reader{}, nextID: firstReader,
		known: map[[2]uint64]Endpoint{}, done: make(chan struct{})}
	p.domain = C.dds_create_domain(C.dds_domainid_t(cfg.Domain), xml)
	if p.domain < 0 {
		return nil, ddsErr("creating the domain (configuration refused?)", p.domain)
	}
	fail := func(what string, rc C.dds_return_t) (*Participant, error) {
		C.dds_delete(p.domain)
		return nil, ddsErr(what, rc)
	}
	if p.pp = C.dds_create_participant(C.dds_domainid_t(cfg.Domain), nil, nil); p.pp < 0 {
		return fail("creating the participant", p.pp)
	}
	var g C.dds_guid_t
	if rc := C.dds_get_guid(p.pp, &g); rc < 0 {
		return fail("reading the participant's GUID", rc)
	}
	p.guid = *(*[16]byte)(unsafe.Pointer(&g.v[0]))
	if p.ws = C.dds_create_waitset(p.pp); p.ws < 0 {
		return fail("creating the waitset", p.ws)
	}
	if p.guard = C.dds_create_guardcondition(p.pp); p.guard < 0 {
		return fail("creating the guard condition", p.guard)
	}
	if rc := C.dds_waitset_attach(p.ws, p.guard, attachGuard); rc < 0 {
		return fail("attaching the guard condition", rc)
	}
	for _, b := range []struct {
		dst    *C.dds_entity_t
		pubs   C.int
		attach C.dds_attach_t
	}{{&p.pubs, 1, attachPublications}, {&p.subs, 0, attachSubscriptions}} {
		rd := C.fleetgate_builtin_reader(p.pp, b.pubs)
		if rd < 0 {
			return fail("reading discovery", rd)
		}
		*b.dst = rd
		cond := C.dds_create_readcondition(rd, C.DDS_ANY_STATE)
		if cond < 0 {
			return fail("reading discovery", cond)
		}
		if rc := C.dds_waitset_attach(p.ws, cond, b.attach); rc < 0 {
			return fail("attaching discovery", rc)
		}
	}
	go p.run()
	return p, nil
}

// Close deletes the participant and everything in it; readers deliver nothing after it.
func (p *Participant) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		C.dds_set_guardcondition(p.guard, true)
		<-p.done
		C.dds_delete(p.domain)
	})
}

func (p *Participant) run() {
	defer close(p.done)
	xs := make([]C.dds_attach_t, 64)
	lastOversize := time.Now()
	for {
		n := C.dds_waitset_wait(p.ws, &xs[0], C.size_t(len(xs)), C.dds_duration_t(time.Second))
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return
		}
		if n < 0 {
			p.log.Error("DDS waitset failed", "err", ddsErr("wait", n))
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for _, x := range xs[:n] {
			switch x {
			case attachPublications:
				p.discover(p.pubs, true)
			case attachSubscriptions:
				p.discover(p.subs, false)
			case attachGuard:
			default:
				p.mu.Lock()
				r := p.readers[uint64(x)]
				p.mu.Unlock()
				if r != nil {
					r.take()
				}
			}
		}
		if time.Since(lastOversize) > time.Second {
			lastOversize = time.Now()
			p.mu.Lock()
			rs := make([]*Reader, 0, len(p.readers))
			for _, r := range p.readers {
				rs = append(rs, r)
			}
			p.mu.Unlock()
			for _, r := range rs {
				r.checkOversize()
			}
		}
	}
}

func (p *Participant) discover(rd C.dds_entity_t, writers bool) {
	var eps [32]C.rawcdr_endpoint
	for {
		n := C.rawcdr_take_endpoints(rd, &eps[0], 32)
		if n <= 0 {
			return
		}
		for _, e := range eps[:n] {
			key := [2]uint64{uint64(rd), uint64(e.handle)}
			if e.alive == 0 {
				p.mu.Lock()
				ep, ok := p.known[key]
				delete(p.known, key)
				p.mu.Unlock()
				if ok && p.cfg.OnEvent != nil {
					p.cfg.OnEvent(Event{Endpoint: ep, Gone: true})
				}
				continue
			}
			ep := Endpoint{
				GUID:        *(*[16]byte)(unsafe.Pointer(&e.key[0])),
				Participant: *(*[16]byte)(unsafe.Pointer(&e.participant[0])),
				Topic:       C.GoString(e.topic),
				Type:        C.GoString(e.type_name),
				Writer:      writers,
				QoS:         QoS{Reliable: e.reliable == 1 || (e.reliable < 0 && writers), TransientLocal: e.transient_local != 0},
			}
			if ep.Participant == p.guid {
				continue // our own readers and writers
			}
			p.mu.Lock()
			p.known[key] = ep
			p.mu.Unlock()
			if p.cfg.OnEvent != nil {
				p.cfg.OnEvent(Event{Endpoint: ep})
			}
		}
		C.rawcdr_endpoints_free(&eps[0], n)
	}
}

// Reader takes the samples of one topic.
type Reader struct {
	p        *Participant
	id       uint64
	name     string
	topic    C.dds_entity_t
	rd       C.dds_entity_t
	st       *C.struct_ddsi_sertype
	mu       sync.Mutex // held while delivering; Close waits for it
	on       func([]byte)
	closed   bool
	oversize uint32 // samples dropped here for their size (the sertype counts its own)
	reported uint32 // of both, how many were logged
	logged   time.Time
}

func (p *Participant) topic(name, typ string) (C.dds_entity_t, *C.struct_ddsi_sertype, error) {
	cn, ct := C.CString(name), C.CString(typ)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(ct))
	var st *C.struct_ddsi_sertype
	tp := C.rawcdr_topic(p.pp, cn, ct, &st)
	if tp < 0 {
		return 0, nil, ddsErr("creating topic "+name+" of type "+typ, tp)
	}
	return tp, st, nil
}

// Reader reads topic (a DDS name, rt/...) of DDS type typ with qos; onSample gets a copy of
// every sample's bytes, encapsulation header included, from the participant's goroutine. It
// must not block for long, nor close the reader.
func (p *Participant) Reader(topic, typ string, qos QoS, onSample func([]byte)) (*Reader, error) {
	tp, st, err := p.topic(topic, typ)
	if err != nil {
		return nil, err
	}
	q := C.fleetgate_qos(cbool(qos.Reliable), cbool(qos.TransientLocal), C.int(max(qos.Depth, 1)))
	defer C.dds_delete_qos(q)
	rd := C.dds_create_reader(p.pp, tp, q, nil)
	if rd < 0 {
		C.dds_delete(tp)
		return nil, ddsErr("creating a reader of "+topic, rd)
	}
	cond := C.dds_create_readcondition(rd, C.DDS_ANY_STATE)
	if cond < 0 {
		C.dds_delete(rd)
		C.dds_delete(tp)
		return nil, ddsErr("creating a read condition on "+topic, cond)
	}
	p.mu.Lock()
	id := p.nextID
	p.nextID++
	// The sertype may be shared with an earlier reader of the topic: its count so far is not ours.
	r := &Reader{p: p, id: id, name: topic, topic: tp, rd: rd, st: st, on: onSample, reported: uint32(C.rawcdr_oversize(st))}
	p.readers[id] = r
	p.mu.Unlock()
	if rc := C.dds_waitset_attach(p.ws, cond, C.dds_attach_t(id)); rc < 0 {
		r.Close()
		return nil, ddsErr("attaching a reader of "+topic, rc)
	}
	return r, nil
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// take delivers what the reader has; a sample over MaxSample was refused by the sertype
// before any copy (see checkOversize).
func (r *Reader) take() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	var sds [16]*C.struct_ddsi_serdata
	var sizes [16]C.uint32_t
	for {
		n := C.rawcdr_take(r.rd, &sds[0], &sizes[0], 16)
		if n <= 0 {
			return
		}
		for i := range int(n) {
			size := int(sizes[i])
			if size > 0 && size <= r.p.cfg.MaxSample {
				buf := make([]byte, size)
				C.rawcdr_copy(sds[i], unsafe.Pointer(&buf[0]), C.uint32_t(size))
				C.rawcdr_release(sds[i])
				// The writer may say how many bytes at the end are padding (the low bits of
				// the encapsulation options): the sample is what comes before them.
				if pad := int(buf[3] & 3); size >= 4+pad {
					buf = buf[:size-pad]
					buf[3] &^= 3 // and none is left
				}
				r.on(buf)
				continue
			}
			C.rawcdr_release(sds[i])
			if size > 0 {
				r.oversize++
			}
		}
		if n < 16 {
			return
		}
	}
}

// sertypeOversize is how many samples of the topic reached the raw sertype whole, only to be
// refused there for their size: with Cyclone's own MaxSampleSize set, none.
func (r *Reader) sertypeOversize() uint32 { return uint32(C.rawcdr_oversize(r.st)) }

// checkOversize logs the samples dropped for their size, at most once a minute per topic.
func (r *Reader) checkOversize() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	total := uint32(C.rawcdr_oversize(r.st)) + r.oversize
	if total == r.reported || time.Since(r.logged) < time.Minute {
		return
	}
	r.logged = time.Now()
	r.p.log.Warn("dropping DDS samples over the size limit (--ros2-max-sample; logged once a minute)", "topic", r.name, "dropped", total-r.reported, "limit", r.p.cfg.MaxSample)
	r.reported = total
}

// Close deletes the reader; once it returns, onSample is not called again.
func (r *Reader) Close() {
	r.p.mu.Lock()
	delete(r.p.readers, r.id)
	r.p.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	C.dds_delete(r.rd) // its read condition goes with it, detached from the waitset
	C.dds_delete(r.topic)
}

// Writer publishes samples on one topic.
type Writer struct {
	topic C.dds_entity_t
	wr    C.dds_entity_t
	st    *C.struct_ddsi_sertype
	name  string
	mu    sync.Mutex
	done  bool
}

// Writer makes a writer of topic (rt/...) of DDS type typ with qos.
func (p *Participant) Writer(topic, typ string, qos QoS) (*Writer, error) {
	tp, st, err := p.topic(topic, typ)
	if err != nil {
		return nil, err
	}
	q := C.fleetgate_qos(cbool(qos.Reliable), cbool(qos.TransientLocal), C.int(max(qos.Depth, 1)))
	defer C.dds_delete_qos(q)
	wr := C.dds_create_writer(p.pp, tp, q, nil)
	if wr < 0 {
		C.dds_delete(tp)
		return nil, ddsErr("creating a writer of "+topic, wr)
	}
	return &Writer{topic: tp, wr: wr, st: st, name: topic}, nil
}

// Write publishes one sample: CDR bytes, encapsulation header included.
func (w *Writer) Write(data []byte) error {
	if len(data) < 4 {
		return fmt.Errorf("dds: a sample of %d bytes has no encapsulation header", len(data))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return fmt.Errorf("dds: writer of %s is closed", w.name)
	}
	if rc := C.rawcdr_write(w.wr, w.st, unsafe.Pointer(&data[0]), C.uint32_t(len(data))); rc < 0 {
		return ddsErr("writing to "+w.name, rc)
	}
	return nil
}

// Matched is how many readers the writer reaches now.
func (w *Writer) Matched() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return 0
	}
	return int(C.fleetgate_matched(w.wr))
}

// Close deletes the writer.
func (w *Writer) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.done = true
	C.dds_delete(w.wr)
	C.dds_delete(w.topic)
}
