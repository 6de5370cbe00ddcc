package rosnode

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/ros1/xmlrpc"
)

// ErrRefused is wrapped when the master or a node answers a call with a failure code.
var ErrRefused = errors.New("refused")

// Master calls the ROS master's API on behalf of one caller.
type Master struct {
	URI      string
	CallerID string
	client   xmlrpc.Client
}

// NewMaster returns a client of the master at uri (http://host:11311/).
func NewMaster(uri, callerID string) *Master {
	return &Master{URI: uri, CallerID: callerID, client: xmlrpc.Client{HTTP: apiHTTP}}
}

// apiHTTP carries the master and node API calls: each call is bounded by its context, and
// connections are kept short (rosmaster closes them after each call anyway).
var apiHTTP = &http.Client{Transport: &http.Transport{
	MaxIdleConnsPerHost:   2,
	IdleConnTimeout:       30 * time.Second,
	ResponseHeaderTimeout: 10 * time.Second,
}}

// call invokes a ROS API method and returns the value of a [code, statusMessage, value] answer
// whose code is 1 (success).
func call(ctx context.Context, c *xmlrpc.Client, uri, method string, params ...any) (any, error) {
	v, err := c.Call(ctx, uri, method, params...)
	if err != nil {
		return nil, err
	}
	triple, ok := v.([]any)
	if !ok || len(triple) != 3 {
		return nil, fmt.Errorf("%s %s: answer %v is not [code, message, value]", uri, method, truncate(v))
	}
	code, ok := triple[0].(int)
	msg, _ := triple[1].(string)
	if !ok {
		return nil, fmt.Errorf("%s %s: answer code %v is not an int", uri, method, triple[0])
	}
	if code != 1 {
		return nil, fmt.Errorf("%w: %s %s: %s (code %d)", ErrRefused, uri, method, msg, code)
	}
	return triple[2], nil
}

func truncate(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func (m *Master) call(ctx context.Context, method string, params ...any) (any, error) {
	return call(ctx, &m.client, m.URI, method, append([]any{m.CallerID}, params...)...)
}

// GetPid is the master's process id: it changes when the master restarts.
func (m *Master) GetPid(ctx context.Context) (int, error) {
	v, err := m.call(ctx, "getPid")
	if err != nil {
		return 0, err
	}
	pid, ok := v.(int)
	if !ok {
		return 0, fmt.Errorf("getPid: %v is not an int", truncate(v))
	}
	return pid, nil
}

// TopicNodes is a topic and the nodes at one end of it.
type TopicNodes struct {
	Topic string
	Nodes []string
}

// SystemState is the graph as the master knows it.
type SystemState struct {
	Publishers  []TopicNodes
	Subscribers []TopicNodes
	Services    []TopicNodes
}

// GetSystemState lists the publishers, subscribers and services of every topic.
func (m *Master) GetSystemState(ctx context.Context) (SystemState, error) {
	v, err := m.call(ctx, "getSystemState")
	if err != nil {
		return SystemState{}, err
	}
	parts, ok := v.([]any)
	if !ok || len(parts) != 3 {
		return SystemState{}, fmt.Errorf("getSystemState: %v is not three lists", truncate(v))
	}
	var st SystemState
	for i, dst := range []*[]TopicNodes{&st.Publishers, &st.Subscribers, &st.Services} {
		list, ok := parts[i].([]any)
		if !ok {
			return SystemState{}, fmt.Errorf("getSystemState: part %d is not a list", i)
		}
		for _, e := range list {
			pair, ok := e.([]any)
			if !ok || len(pair) != 2 {
				return SystemState{}, fmt.Errorf("getSystemState: %v is not [topic, nodes]", truncate(e))
			}
			topic, _ := pair[0].(string)
			nodes, err := stringList(pair[1])
			if topic == "" || err != nil {
				return SystemState{}, fmt.Errorf("getSystemState: %v is not [topic, nodes]", truncate(e))
			}
			*dst = append(*dst, TopicNodes{Topic: topic, Nodes: nodes})
		}
	}
	return st, nil
}

// stringList reads a list of strings.
func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%v is not a list", truncate(v))
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a string", truncate(e))
		}
		out = append(out, s)
	}
	return out, nil
}

// GetTopicTypes maps every topic the master knows to its type.
func (m *Master) GetTopicTypes(ctx context.Context) (map[string]string, error) {
	v, err := m.call(ctx, "getTopicTypes")
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("getTopicTypes: %v is not a list", truncate(v))
	}
	out := make(map[string]string, len(list))
	for _, e := range list {
		pair, err := stringList(e)
		if err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("getTopicTypes: %v is not [topic, type]", truncate(e))
		}
		out[pair[0]] = pair[1]
	}
	return out, nil
}

// LookupNode returns the API URI of a node.
func (m *Master) LookupNode(ctx context.Context, node string) (string, error) {
	v, err := m.call(ctx, "lookupNode", node)
	if err != nil {
		return "", err
	}
	uri, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("lookupNode: %v is not a URI", truncate(v))
	}
	return uri, nil
}

// RegisterSubscriber registers callerAPI as a subscriber of topic and returns the topic's
// publishers' API URIs.
func (m *Master) RegisterSubscriber(ctx context.Context, topic, typ, callerAPI string) ([]string, error) {
	v, err := m.call(ctx, "registerSubscriber", topic, typ, callerAPI)
	if err != nil {
		return nil, err
	}
	return stringList(v)
}

// UnregisterSubscriber undoes RegisterSubscriber.
func (m *Master) UnregisterSubscriber(ctx context.Context, topic, callerAPI string) error {
	_, err := m.call(ctx, "unregisterSubscriber", topic, callerAPI)
	return err
}

// RegisterPublisher registers callerAPI as a publisher of topic and returns the API URIs of
// its subscribers.
func (m *Master) RegisterPublisher(ctx context.Context, topic, typ, callerAPI string) ([]string, error) {
	v, err := m.call(ctx, "registerPublisher", topic, typ, callerAPI)
	if err != nil {
		return nil, err
	}
	return stringList(v)
}

// UnregisterPublisher undoes RegisterPublisher.
func (m *Master) UnregisterPublisher(ctx context.Context, topic, callerAPI string) error {
	_, err := m.call(ctx, "unregisterPublisher", topic, callerAPI)
	return err
}
