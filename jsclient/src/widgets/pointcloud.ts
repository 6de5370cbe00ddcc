// The point cloud widget: three.js points with orbit controls, coloured by height or
// intensity. Buffers are allocated once for 500k points and refilled per frame (no garbage
// per frame); the scene renders only when a frame arrives or the camera moves.
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { cloudArrays, type CloudArrays, type ColorBy } from "../decode/cloud.js";
import { decode } from "../decode/decoder.js";
import { StatusLine } from "./status.js";
import { liveFeed, streamOf, type Feed } from "./stream.js";

const capacity = 500_000;

/** Mounts the cloud view on el, fed by the live socket or by feed (a recording's player). */
export function mountPointCloud(el: HTMLElement, feed: Feed = liveFeed()): () => void {
  const ref = streamOf(el);
  const status = new StatusLine(el);
  const canvas = document.createElement("canvas");
  canvas.className = "pointcloud";
  const pick = document.createElement("select");
  pick.setAttribute("aria-label", "Colour the points by");
  for (const v of ["height", "intensity"]) pick.append(new Option(`colour by ${v}`, v));
  // The gateway downsamples clouds unless asked (DESIGN section 5); full resolution is a choice.
  const full = document.createElement("label");
  const fullBox = document.createElement("input");
  fullBox.type = "checkbox";
  full.append(fullBox, " full resolution");
  const controlsRow = document.createElement("p");
  controlsRow.className = "row";
  controlsRow.append(pick);
  if (!feed.recorded) controlsRow.append(" ", full); // a recording holds the clouds as they were recorded
  el.append(canvas, controlsRow, status.el);

  const width = el.clientWidth || 800;
  const height = 480;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false });
  renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
  renderer.setSize(width, height);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x10141a);
  const camera = new THREE.PerspectiveCamera(60, width / height, 0.05, 500);
  camera.up.set(0, 0, 1); // ROS: z is up
  camera.position.set(-1.5, -3, 2.5);
  const controls = new OrbitControls(camera, canvas);
  controls.target.set(2, 0, 0.5);
  controls.update();
  scene.add(new THREE.AxesHelper(1));
  const grid = new THREE.GridHelper(20, 20, 0x3a4350, 0x262c35);
  grid.rotation.x = Math.PI / 2;
  scene.add(grid);

  let arrays: CloudArrays = { positions: new Float32Array(capacity * 3), colors: new Float32Array(capacity * 3), count: 0, min: 0, max: 0 };
  const geometry = new THREE.BufferGeometry();
  const pos = new THREE.BufferAttribute(arrays.positions, 3).setUsage(THREE.DynamicDrawUsage);
  const col = new THREE.BufferAttribute(arrays.colors, 3).setUsage(THREE.DynamicDrawUsage);
  geometry.setAttribute("position", pos);
  geometry.setAttribute("color", col);
  geometry.setDrawRange(0, 0);
  const points = new THREE.Points(geometry, new THREE.PointsMaterial({ size: 0.04, vertexColors: true }));
  points.frustumCulled = false; // the bounding sphere changes every frame
  scene.add(points);

  let dirty = true;
  const render = (): void => {
    if (dirty) {
      renderer.render(scene, camera);
      dirty = false;
    }
    requestAnimationFrame(render);
  };
  controls.addEventListener("change", () => (dirty = true));
  requestAnimationFrame(render);

  let waiting: ArrayBuffer | null = null;
  let busy = false;
  let frames = 0;
  const pump = async (): Promise<void> => {
    busy = true;
    while (waiting) {
      const buf = waiting;
      waiting = null;
      try {
        const f = await decode(buf, true);
        if (f.payload?.dataType !== "Platform.Messages.sensor_msgs.PointCloud2") continue;
        const t0 = performance.now();
        arrays = cloudArrays(f.payload.message, pick.value as ColorBy, capacity, arrays);
        pos.needsUpdate = true;
        col.needsUpdate = true;
        geometry.setDrawRange(0, arrays.count);
        dirty = true;
        el.dataset.frames = String(++frames);
        el.dataset.points = String(arrays.count);
        status.figures(`${arrays.count} points · ${pick.value} ${arrays.min.toFixed(2)}…${arrays.max.toFixed(2)} · ${(performance.now() - t0).toFixed(0)} ms to fill`);
      } catch (e) {
        status.figures(`bad frame: ${(e as Error).message}`);
      }
    }
    busy = false;
  };
  const open = () =>
    feed.open(
      ref,
      {
        staleAfterMs: 5000,
        onStatus: (s) => status.socketStatus(s),
        onMessage: (data) => {
          if (typeof data === "string") return;
          waiting = data; // newest wins: a slow tab skips frames
          if (!busy) void pump();
        },
      },
      fullBox.checked ? { withoutDownSampling: "true" } : {},
    );
  let socket = open();
  fullBox.addEventListener("change", () => {
    socket.stop();
    socket = open();
  });
  return () => {
    socket.stop();
    geometry.dispose();
    renderer.dispose();
  };
}
