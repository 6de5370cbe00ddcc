package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Identity of the simulated robots' software, as their metrics and Info report it.
const (
	configName    = "warehouse-sim"
	configVersion = "1"
	// agentStatusRunning is the AgentOperationalState status of an agent that runs normally.
	agentStatusRunning = 10
)

// robot is one simulated robot; it implements fleet.Robot.
type robot struct {
	sim        *Sim
	info       fleetgate.Info
	uuid       uuid.UUID
	created    time.Time
	components []fleetgate.ComponentInfo

	// Guarded by sim.mu.
	body                                                    body
	nextPose, nextBattery, nextScan, nextCamera, nextPoints time.Time

	streams []fleetgate.Stream // in a fixed order, the inputs last
	outputs map[fleetgate.StreamKey]*output
	input   fleetgate.Stream
	// goalIn and waypointIn take goals in the map frame (nav.go); navStatus says how the
	// robot gets on.
	goalIn, waypointIn fleetgate.Stream
	navStatus          *output
	nav                nav // guarded by sim.mu
	nextNav            time.Time

	pose, odom, battery, scan, image, points, grid *output
	// command is every drive command the robot received, as it received it (before its own
	// limits): what came through the door, for operators and tests to see.
	command *output

	scanMu     sync.Mutex // one scan at a time; a second reader takes the first's result
	cam        camera
	depth      depthSensor
	camKick    chan struct{} // wakes the camera worker (with Start)
	pointsKick chan struct{}

	// Work done, for tests proving that nothing renders without readers.
	renders atomic.Int64 // camera frames
	clouds  atomic.Int64 // point clouds
	scans   atomic.Int64
}

var _ fleet.Robot = (*robot)(nil)

// output is an output stream and the topic its values go out on. active says whether anyone
// subscribes, so that the loop computes sensor data only for subscribers.
type output struct {
	stream fleetgate.Stream
	topic  *fleet.Topic
	kick   chan struct{} // woken when the first subscriber arrives; may be nil

	activeMu sync.Mutex
	active   atomic.Bool
}

// onActive is the topic's callback. It asks the topic for the truth rather than trusting its
// argument: callbacks of a quick subscribe and close may run in either order.
func (o *output) onActive(bool) {
	o.activeMu.Lock()
	active := o.topic.Subscribers() > 0
	o.active.Store(active)
	o.activeMu.Unlock()
	if active && o.kick != nil {
		select {
		case o.kick <- struct{}{}: // a new viewer gets a frame now, not a period later
		default:
		}
	}
}

func newRobot(s *Sim, index int, id identity, b body) *robot {
	r := &robot{
		sim: s,
		info: fleetgate.Info{
			ID:            id.ID,
			Name:          fmt.Sprintf("sim-%d", index+1),
			ConfigName:    configName,
			ConfigVersion: configVersion,
			AgentVersion:  s.cfg.AgentVersion,
		},
		uuid:       uuid.MustParse(id.ID),
		created:    id.Created,
		body:       b,
		outputs:    map[fleetgate.StreamKey]*output{},
		camKick:    make(chan struct{}, 1),
		pointsKick: make(chan struct{}, 1),
	}
	for _, name := range []string{"base", "lidar", "camera", "depth", "map", "nav"} {
		r.components = append(r.components, fleetgate.ComponentInfo{
			ID:      name,
			UUID:    uuid.NewSHA1(r.uuid, []byte("component/"+name)).String(),
			Name:    name,
			Version: s.cfg.AgentVersion,
			State:   "Active",
		})
	}
	add := func(component, name, typ string, kick chan struct{}) *output {
		o := &output{
			stream: fleetgate.Stream{Component: component, Name: name, Type: typ, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			kick:   kick,
		}
		o.topic = fleet.NewTopic(typ, o.onActive)
		r.outputs[o.stream.Key()] = o
		r.streams = append(r.streams, o.stream)
		return o
	}
	r.pose = add("base", "pose", typePoseStamped, nil)
	r.odom = add("base", "odom", typeOdometry, nil)
	r.battery = add("base", "battery", typeBattery, nil)
	r.scan = add("lidar", "scan", typeLaserScan, nil)
	r.image = add("camera", "image", typeCompressed, r.camKick)
	r.points = add("depth", "points", typePointCloud, r.pointsKick)
	r.grid = add("map", "map", typeGrid, nil)
	r.input = fleetgate.Stream{Component: "base", Name: "cmd_vel", Type: typeTwist, Direction: fleetgate.Input, Source: fleetgate.SourceComponent,
		Limits: fleetgate.SpeedLimits{Linear: maxSpeed, Angular: maxAngular}}
	if b.kind == carLike {
		r.input.Name, r.input.Type = "drive", typeAckermann
		r.input.Limits.Angular = maxSteer
	}
	r.command = add("base", "command", r.input.Type, nil)
	r.navStatus = add("nav", "status", typeString, nil)
	r.goalIn = fleetgate.Stream{Component: "nav", Name: "goal", Type: typePoseStamped, Direction: fleetgate.Input, Source: fleetgate.SourceComponent}
	r.waypointIn = r.goalIn
	r.waypointIn.Name = "waypoint"
	r.streams = append(r.streams, r.input, r.goalIn, r.waypointIn)
	return r
}

// schedule sets the first due time of each periodic stream.
func (r *robot) schedule(start time.Time) {
	r.nextPose = start.Add(posePeriod)
	r.nextBattery = start.Add(batteryPeriod)
	r.nextScan = start.Add(scanPeriod)
	r.nextCamera = start.Add(cameraPeriod)
	r.nextPoints = start.Add(pointsPeriod)
	r.nextNav = start.Add(navStatusPeriod)
}

// publishState publishes the streams that always have a value: pose, odometry, battery, map.
func (r *robot) publishState(at time.Time) {
	r.sim.mu.Lock()
	b := r.body
	r.sim.mu.Unlock()
	r.pose.topic.Publish(posePayload(&b, at), at)
	r.odom.topic.Publish(odomPayload(&b, at), at)
	r.battery.topic.Publish(batteryPayload(&b, r.serial(), at), at)
	// The map is static: published once, latched, so a viewer joining an hour later gets it.
	r.grid.topic.PublishLatched(r.sim.mapSample.Payload, r.sim.mapSample.Time, true)
	r.navStatus.topic.Publish(navPayload(r.nav.status(&b)), at)
}

func (r *robot) serial() string { return "SIM-" + r.info.ID[:8] }

// due reports whether a periodic stream is due at now and moves its due time on a period.
func due(next *time.Time, now time.Time, period time.Duration) bool {
	if now.Before(*next) {
		return false
	}
	*next = next.Add(period)
	if !next.After(now) {
		*next = now.Add(period) // fell behind: no burst to catch up
	}
	return true
}

// dueLocked appends the work due at now: pose and battery always, sensors only for
// subscribers. Jobs run after the Sim's lock is released; camera and depth frames go to their
// workers when the real-time loop runs.
func (r *robot) dueLocked(now time.Time, jobs []func()) []func() {
	if due(&r.nextPose, now, posePeriod) {
		b := r.body
		jobs = append(jobs, func() {
			r.pose.topic.Publish(posePayload(&b, now), now)
			r.odom.topic.Publish(odomPayload(&b, now), now)
		})
	}
	if r.nav.changed || (r.nav.active() && due(&r.nextNav, now, navStatusPeriod)) {
		r.nav.changed = false
		st := r.nav.status(&r.body)
		jobs = append(jobs, func() { r.navStatus.topic.Publish(navPayload(st), now) })
	}
	if due(&r.nextBattery, now, batteryPeriod) {
		b := r.body
		jobs = append(jobs, func() { r.battery.topic.Publish(batteryPayload(&b, r.serial(), now), now) })
	}
	if due(&r.nextScan, now, scanPeriod) && r.scan.active.Load() {
		jobs = append(jobs, func() {
			r.scanMu.Lock()
			defer r.scanMu.Unlock()
			r.produceScan()
		})
	}
	if due(&r.nextCamera, now, cameraPeriod) && r.image.active.Load() {
		jobs = r.sim.heavy(jobs, r.camKick, r.renderCamera)
	}
	if due(&r.nextPoints, now, pointsPeriod) && r.points.active.Load() {
		jobs = r.sim.heavy(jobs, r.pointsKick, r.renderPoints)
	}
	return jobs
}

// heavy hands a rendering job to its worker when the loop runs in real time (a slow render
// must not hold up the physics), or runs it in step for tests.
func (s *Sim) heavy(jobs []func(), kick chan struct{}, job func()) []func() {
	if !s.async {
		return append(jobs, job)
	}
	select {
	case kick <- struct{}{}:
	default: // the worker is still busy with the last one: frames coalesce
	}
	return jobs
}

// sensorWorker runs a rendering job each time it is kicked, until the simulation ends.
func (r *robot) sensorWorker(kick <-chan struct{}, job func()) {
	defer r.sim.wg.Done()
	for {
		select {
		case <-r.sim.done:
			return
		case <-kick:
			job()
		}
	}
}

// produceScan raycasts a scan now and publishes it. The caller holds scanMu.
func (r *robot) produceScan() (fleetgate.Sample, error) {
	p, sc, now := r.sim.view(r)
	payload := scanPayload(p, sc, now)
	r.scans.Add(1)
	return r.scan.topic.Publish(payload, now), nil
}

// renderCamera renders a frame for the camera's subscribers, if it still has any.
func (r *robot) renderCamera() {
	if !r.image.active.Load() {
		return
	}
	r.cam.mu.Lock()
	defer r.cam.mu.Unlock()
	if _, err := r.produceFrame(); err != nil {
		r.sim.log.Error("rendering the camera", "robot", r.info.Name, "err", err)
	}
}

// produceFrame renders and publishes a camera frame. The caller holds cam.mu.
func (r *robot) produceFrame() (fleetgate.Sample, error) {
	p, sc, now := r.sim.view(r)
	var strip time.Time
	if r.sim.cfg.ClockStrip {
		strip = now // the time the scene was seen, as the envelope says
	}
	data, err := r.cam.render(p, sc, strip)
	if err != nil {
		return fleetgate.Sample{}, fleetgate.Errorf(fleetgate.EUnavailable, "camera: %v", err)
	}
	r.renders.Add(1)
	return r.image.topic.Publish(imagePayload(data, now), now), nil
}

// renderPoints computes a point cloud for the depth stream's subscribers, if it has any.
func (r *robot) renderPoints() {
	if !r.points.active.Load() {
		return
	}
	r.depth.mu.Lock()
	defer r.depth.mu.Unlock()
	r.produceCloud()
}

// produceCloud computes and publishes a point cloud. The caller holds depth.mu.
func (r *robot) produceCloud() (fleetgate.Sample, error) {
	p, sc, now := r.sim.view(r)
	data := r.depth.cloud(p, sc)
	r.clouds.Add(1)
	return r.points.topic.Publish(cloudPayload(data, now), now), nil
}

// readFresh returns o's latest sample if it is younger than period, and otherwise produces
// one under mu (re-checking first: a reader that waited for mu finds its sibling's frame).
func (r *robot) readFresh(ctx context.Context, o *output, period time.Duration, mu *sync.Mutex, produce func() (fleetgate.Sample, error)) (fleetgate.Sample, error) {
	fresh := func() (fleetgate.Sample, bool) {
		s, ok := o.topic.Latest()
		return s, ok && r.sim.clock().Sub(s.Time) < period
	}
	if s, ok := fresh(); ok {
		return s, nil
	}
	mu.Lock()
	defer mu.Unlock()
	if s, ok := fresh(); ok {
		return s, nil
	}
	if err := ctx.Err(); err != nil {
		return fleetgate.Sample{}, err
	}
	return produce()
}

func (r *robot) closeTopics() {
	for _, o := range r.outputs {
		o.topic.Close(r.sim.errOffline(r.info.Name))
	}
}

func (r *robot) offline() error {
	if r.sim.closed.Load() {
		return r.sim.errOffline(r.info.Name)
	}
	return nil
}

// snapshot copies the body and the time.
func (r *robot) snapshot() (body, time.Time) {
	r.sim.mu.Lock()
	defer r.sim.mu.Unlock()
	return r.body, r.sim.now
}

func (r *robot) Info() fleetgate.Info { return r.info }

func (r *robot) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	return slices.Clone(r.streams), nil
}

// output finds an output stream; an input stream or an unknown one is an error.
func (r *robot) output(key fleetgate.StreamKey) (*output, error) {
	if o, ok := r.outputs[key]; ok {
		return o, nil
	}
	if key == r.input.Key() || key == r.goalIn.Key() || key == r.waypointIn.Key() {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "%s/%s is an input stream: it cannot be read", key.Component, key.Name)
	}
	return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no stream %s/%s of source %d", r.info.Name, key.Component, key.Name, key.Source)
}

func (r *robot) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	if err := r.offline(); err != nil {
		return fleetgate.Sample{}, err
	}
	o, err := r.output(key)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	switch o {
	case r.scan:
		return r.readFresh(ctx, o, scanPeriod, &r.scanMu, r.produceScan)
	case r.image:
		return r.readFresh(ctx, o, cameraPeriod, &r.cam.mu, r.produceFrame)
	case r.points:
		return r.readFresh(ctx, o, pointsPeriod, &r.depth.mu, r.produceCloud)
	}
	s, ok := o.topic.Latest()
	if !ok { // every other stream is published from the start
		return fleetgate.Sample{}, fleet.NoSample(key)
	}
	return s, nil
}

func (r *robot) Subscribe(ctx context.Context, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	o, err := r.output(key)
	if err != nil {
		return nil, err
	}
	return o.topic.Subscribe()
}

// Publish takes a drive command that passed the door. A command that is not valid for the
// stream leaves the robot as it was; a valid one is clamped to the drive's limits and
// restarts the command timeout.
func (r *robot) Publish(ctx context.Context, cmd door.Command) error {
	if err := r.offline(); err != nil {
		return err
	}
	if key, ok := cmd.Cancels(); ok {
		return r.cancelGoal(key)
	}
	key, typ, payload, err := cmd.Open()
	if err != nil {
		return err
	}
	if key == r.goalIn.Key() || key == r.waypointIn.Key() {
		return r.goTo(key, typ, payload)
	}
	if key != r.input.Key() {
		if _, ok := r.outputs[key]; ok {
			return fleetgate.Errorf(fleetgate.EInvalid, "%s/%s is an output stream: it takes no messages", key.Component, key.Name)
		}
		return fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no stream %s/%s of source %d", r.info.Name, key.Component, key.Name, key.Source)
	}
	if typ != r.input.Type {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s/%s takes %s, not %s", key.Component, key.Name, r.input.Type, typ)
	}
	m, err := msgs.Decode(typ, payload)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	if err := msgs.CheckFinite(m); err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	var v, w, steer float64
	switch m := m.(type) {
	case *catalogpb.Twist:
		v, w = m.GetLinear().GetX(), m.GetAngular().GetZ()
	case *catalogpb.AckermannDriveStamped:
		v, steer = float64(m.GetDrive().GetSpeed()), float64(m.GetDrive().GetSteeringAngle())
	default:
		return fleetgate.Errorf(fleetgate.EInvalid, "%s is not a drive command", typ)
	}
	r.sim.mu.Lock()
	if r.nav.active() && (v != 0 || w != 0 || steer != 0) {
		r.nav.end(navCancelled, "driven by hand") // the operator took over
	}
	r.body.command(v, w, steer, r.sim.now)
	at := r.sim.now
	r.sim.mu.Unlock()
	r.command.topic.Publish(payload, at)
	return nil
}

// The metric types every simulated robot reports; host metrics come on top when readable.
var robotMetrics = []fleetgate.MetricType{
	fleetgate.MetricBattery, fleetgate.MetricOdometry, fleetgate.MetricLicenseExpired, fleetgate.MetricAgentSw,
	fleetgate.MetricRecordings, fleetgate.MetricComponents, fleetgate.MetricConfiguration,
	fleetgate.MetricPosition, fleetgate.MetricAgentOperationalState, fleetgate.MetricCustom,
}

func (r *robot) Metrics(ctx context.Context) ([]fleetgate.MetricType, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	types := slices.Clone(robotMetrics)
	for _, t := range []fleetgate.MetricType{fleetgate.MetricCpu, fleetgate.MetricRam, fleetgate.MetricDisk, fleetgate.MetricNetwork, fleetgate.MetricGpu} {
		if _, ok := r.hostMetric(t); ok {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	return types, nil
}

// hostMetric reads a metric of the machine the source runs on.
func (r *robot) hostMetric(t fleetgate.MetricType) (any, bool) { return r.sim.cfg.Host.Metric(t) }

// position is the Position metric's document.
type position struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Theta float64 `json:"theta"`
	Frame string  `json:"frame"`
}

// round keeps digits decimals; dividing (not multiplying by 1e-3) gives the float nearest the
// decimal, so the JSON shows 5.123 rather than 5.122999999999999.
func round(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}

func (r *robot) Metric(ctx context.Context, typ fleetgate.MetricType, name string) (fleetgate.Metric, error) {
	if err := r.offline(); err != nil {
		return fleetgate.Metric{}, err
	}
	m := fleetgate.Metric{Type: typ}
	b, _ := r.snapshot()
	switch typ {
	case fleetgate.MetricCpu, fleetgate.MetricRam, fleetgate.MetricDisk, fleetgate.MetricNetwork, fleetgate.MetricGpu:
		v, ok := r.hostMetric(typ)
		if !ok {
			return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "metric %s cannot be read on this host", typ.Name())
		}
		m.Value = v
	case fleetgate.MetricBattery:
		m.Value = b.battery
	case fleetgate.MetricOdometry:
		m.Value = b.travelled
	case fleetgate.MetricPosition:
		doc, err := json.Marshal(position{X: round(b.x, 3), Y: round(b.y, 3), Theta: round(b.theta, 4), Frame: frameMap})
		if err != nil {
			return fleetgate.Metric{}, err
		}
		m.Value = string(doc)
	case fleetgate.MetricLicenseExpired:
		m.Value = r.created.AddDate(1, 0, 0)
	case fleetgate.MetricAgentSw:
		m.Value = fleetgate.AgentSw{UpdateAvailable: false}
	case fleetgate.MetricAgentOperationalState:
		m.Value = fleetgate.AgentOperationalState{AgentStatus: agentStatusRunning, Version: r.sim.cfg.AgentVersion}
	case fleetgate.MetricComponents:
		m.Value = slices.Clone(r.components)
	case fleetgate.MetricConfiguration:
		m.Value = fleetgate.ConfigInfo{Name: configName, Version: configVersion, State: "Ready"}
	case fleetgate.MetricRecordings:
		m.Value = []fleetgate.Recorder{} // the simulator records nothing
	case fleetgate.MetricCustom:
		kpis, _ := r.KPIs(ctx)
		return fleet.CustomMetric(kpis, name, r.info.Name)
	default:
		return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s does not report metric type %d", r.info.Name, typ)
	}
	return m, nil
}

// KPIs are pose, battery (percent) and activity (idle, moving, charging, blocked).
func (r *robot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	b, now := r.snapshot()
	return []fleetgate.KPI{
		{Name: "pose", DataType: typePose, Payload: marshal(poseMsg(&b)), Time: now},
		{Name: "battery", DataType: typeFloat64, Payload: marshal(&catalogpb.Float64{Data: b.battery}), Time: now},
		{Name: "activity", DataType: typeString, Payload: marshal(&catalogpb.String{Data: b.activity()}), Time: now},
	}, nil
}

// resourceFile is a file a robot offers.
type resourceFile struct {
	path, mime, fileType string
	adminOnly            bool
}

func (r *robot) files() []resourceFile {
	var files []resourceFile
	if r.sim.cfg.LogFile != "" {
		// The agent's log: every user and robot of the agent is in it.
		files = append(files, resourceFile{r.sim.cfg.LogFile, "text/plain", "log", true})
	}
	return append(files, resourceFile{r.sim.mapFile, "image/png", "image", false})
}

// resourceID is stable for a robot and a file name.
func (r *robot) resourceID(f resourceFile) string {
	return uuid.NewSHA1(r.uuid, []byte(filepath.Base(f.path))).String()
}

func (r *robot) resource(f resourceFile, st os.FileInfo) fleetgate.Resource {
	return fleetgate.Resource{
		ID:        r.resourceID(f),
		Name:      filepath.Base(f.path),
		MIMEType:  f.mime,
		FileType:  f.fileType,
		Size:      st.Size(),
		CreatedAt: st.ModTime(),
		AdminOnly: f.adminOnly,
	}
}

// Resources lists the files that exist now: the log file may not have been created yet.
func (r *robot) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	var out []fleetgate.Resource
	for _, f := range r.files() {
		st, err := os.Stat(f.path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		out = append(out, r.resource(f, st))
	}
	return out, nil
}

func (r *robot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	if err := r.offline(); err != nil {
		return nil, fleetgate.Resource{}, err
	}
	for _, f := range r.files() {
		if r.resourceID(f) != id {
			continue
		}
		file, err := os.Open(f.path)
		if err != nil {
			return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "resource %s: %v", id, err)
		}
		st, err := file.Stat()
		if err != nil || !st.Mode().IsRegular() {
			file.Close()
			return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "resource %s is not a regular file", id)
		}
		return file, r.resource(f, st), nil
	}
	return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no resource %s", r.info.Name, id)
}
