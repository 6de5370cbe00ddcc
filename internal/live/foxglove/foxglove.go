// Package foxglove speaks the framing of Foxglove's WebSocket protocol, foxglove.websocket.v1
// (the published specification, docs/spec.md of github.com/foxglove/ws-protocol): the JSON
// messages both sides send, the binary message header, the parsing of what a client sends,
// and a robot stream as a channel (topic, encoding, schema). It is pure: the session that
// runs the protocol is internal/live's (Sessions.RunFoxglove).
package foxglove

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Subprotocol is the WebSocket subprotocol a client offers and the server selects.
const Subprotocol = "foxglove.websocket.v1"

// Capabilities the server may announce in its serverInfo.
const (
	CapabilityClientPublish = "clientPublish"
)

// Client publishing encodings this server takes: JSON first, which Foxglove's and Lichtblick's
// publishing panels (Teleop, Publish) pick when offered, then the catalog's protobuf.
const (
	EncodingJSON     = "json"
	EncodingProtobuf = "protobuf"
)

// Status levels.
const (
	LevelInfo    = 0
	LevelWarning = 1
	LevelError   = 2
)

// ServerInfo is the first message to every client.
type ServerInfo struct {
	Op                 string            `json:"op"` // "serverInfo"
	Name               string            `json:"name"`
	Capabilities       []string          `json:"capabilities"`
	SupportedEncodings []string          `json:"supportedEncodings,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	SessionID          string            `json:"sessionId,omitempty"`
}

// Channel is a stream the server offers (advertise).
type Channel struct {
	ID             uint32 `json:"id"`
	Topic          string `json:"topic"`
	Encoding       string `json:"encoding"`
	SchemaName     string `json:"schemaName"`
	Schema         string `json:"schema"`
	SchemaEncoding string `json:"schemaEncoding,omitempty"`
}

// Advertise announces channels.
type Advertise struct {
	Op       string    `json:"op"` // "advertise"
	Channels []Channel `json:"channels"`
}

// Unadvertise withdraws channels.
type Unadvertise struct {
	Op         string   `json:"op"` // "unadvertise"
	ChannelIDs []uint32 `json:"channelIds"`
}

// Status is a message for the client's user.
type Status struct {
	Op      string `json:"op"` // "status"
	Level   int    `json:"level"`
	Message string `json:"message"`
	ID      string `json:"id,omitempty"`
}

// RemoveStatus withdraws status messages by id.
type RemoveStatus struct {
	Op        string   `json:"op"` // "removeStatus"
	StatusIDs []string `json:"statusIds"`
}

// Marshal is the JSON of a server message, op set by its type.
func Marshal(m any) []byte {
	switch m := m.(type) {
	case *ServerInfo:
		m.Op = "serverInfo"
	case *Advertise:
		m.Op = "advertise"
	case *Unadvertise:
		m.Op = "unadvertise"
	case *Status:
		m.Op = "status"
	case *RemoveStatus:
		m.Op = "removeStatus"
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("foxglove: marshal %T: %v", m, err)) // plain structs of strings and numbers
	}
	return b
}

// Binary message opcodes.
const (
	opMessageData       = 0x01 // server: a channel's message; client: a client channel's message
	opClientServiceCall = 0x02
)

// MessageHeaderLen is the length of a server's message data header: opcode, subscription id,
// timestamp.
const MessageHeaderLen = 1 + 4 + 8

// AppendMessageHeader appends the header of a message data frame for subscription sub, with
// the message's time in nanoseconds since the epoch: the frame's payload (the message) follows
// it, shared by every client, while this header is the client's own.
func AppendMessageHeader(b []byte, sub uint32, nanos uint64) []byte {
	b = append(b, opMessageData)
	b = binary.LittleEndian.AppendUint32(b, sub)
	return binary.LittleEndian.AppendUint64(b, nanos)
}

// Subscription is one of a subscribe request's: the client's id for it and a channel.
type Subscription struct {
	ID        uint32 `json:"id"`
	ChannelID uint32 `json:"channelId"`
}

// ClientChannel is a channel a client advertises to publish on.
type ClientChannel struct {
	ID             uint32 `json:"id"`
	Topic          string `json:"topic"`
	Encoding       string `json:"encoding"`
	SchemaName     string `json:"schemaName"`
	Schema         string `json:"schema,omitempty"`
	SchemaEncoding string `json:"schemaEncoding,omitempty"`
}

// ClientOp is a JSON message of a client, of one of the kinds this server serves; the fields
// of other kinds are left zero.
type ClientOp struct {
	Op              string          `json:"op"`
	Subscriptions   []Subscription  `json:"subscriptions"`   // subscribe
	SubscriptionIDs []uint32        `json:"subscriptionIds"` // unsubscribe
	Channels        []ClientChannel `json:"channels"`        // advertise
	ChannelIDs      []uint32        `json:"channelIds"`      // unadvertise
}

// The client operations this server serves.
const (
	OpSubscribe   = "subscribe"
	OpUnsubscribe = "unsubscribe"
	OpAdvertise   = "advertise"
	OpUnadvertise = "unadvertise"
)

// ParseClientOp reads a client's text message. An operation this server does not serve
// (parameters, services, the connection graph, assets) is not an error: its Op says which.
func ParseClientOp(data []byte) (ClientOp, error) {
	var op ClientOp
	if err := json.Unmarshal(data, &op); err != nil {
		return ClientOp{}, fmt.Errorf("not a message of the protocol: %v", jsonError(err))
	}
	if op.Op == "" {
		return ClientOp{}, fmt.Errorf("not a message of the protocol: no op")
	}
	return op, nil
}

// jsonError words a JSON error without quoting the client's bytes back at length.
func jsonError(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// ClientMessage is a binary message of a client: a message for one of its channels.
type ClientMessage struct {
	ChannelID uint32
	Payload   []byte // within the bytes it was parsed from
}

// ParseClientMessage reads a client's binary message: a message of one of its channels (other
// binary messages, service calls, are refused: this server offers no services).
func ParseClientMessage(data []byte) (ClientMessage, error) {
	if len(data) == 0 {
		return ClientMessage{}, fmt.Errorf("an empty binary message")
	}
	switch data[0] {
	case opMessageData:
		if len(data) < 5 {
			return ClientMessage{}, fmt.Errorf("a client message of %d bytes: its header is 5", len(data))
		}
		return ClientMessage{ChannelID: binary.LittleEndian.Uint32(data[1:5]), Payload: data[5:]}, nil
	case opClientServiceCall:
		return ClientMessage{}, fmt.Errorf("this server offers no services")
	default:
		return ClientMessage{}, fmt.Errorf("unknown binary opcode 0x%02x", data[0])
	}
}

// Nanos is t's nanoseconds since the epoch as the protocol carries them; 0 for a time before
// it, which the protocol cannot say.
func Nanos(t time.Time) uint64 {
	if sec := t.Unix(); sec < 0 || sec >= math.MaxInt64/int64(time.Second) {
		return 0
	}
	return uint64(t.UnixNano())
}

// Topic is the topic of a robot stream: a ROS topic keeps its name (/odom); a component's
// stream is /component/name (/camera/image).
func Topic(component, name string) string {
	if component == "" {
		if strings.HasPrefix(name, "/") {
			return name
		}
		return "/" + name
	}
	return "/" + strings.TrimPrefix(component, "/") + "/" + name
}
