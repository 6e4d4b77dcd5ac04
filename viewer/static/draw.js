// Drawing the level at one step on a 2-D canvas: the evaluator's black-on-white look (exact, or with
// a grey outline per block so touching blocks stay apart — the default) or wood colours, with optional
// highlights (moving, destroyed, first mover, selection), block numbers, velocity vectors and contacts.

import { poseAt } from './frames.js';
import { labelFontSize, placePath, worldToPixel } from './geometry.js';

/** @typedef {import('../page-data.js').ViewerMeta} ViewerMeta */
/** @typedef {import('../page-data.js').ViewerBody} ViewerBody */
/** @typedef {import('./frames.js').Frames} Frames */
/** @typedef {import('./frames.js').PoseAt} PoseAt */
/** @typedef {import('./geometry.js').View} View */
/** @typedef {import('./geometry.js').Path} Path */
/** @typedef {'black' | 'outlined' | 'wood'} Look */

/**
 * One step of one trial as `drawScene` draws it, with the display options.
 * @typedef {object} Scene
 * @property {ViewerMeta} meta
 * @property {Frames} frames
 * @property {number} step
 * @property {View} view
 * @property {Look} style
 * @property {boolean} labels
 * @property {Array<[number, number, number]>} [placedLabels] Filled with [id, x, y] of each block number drawn.
 * @property {boolean} highlights
 * @property {boolean} vectors
 * @property {boolean} contacts
 * @property {number | null} selected
 * @property {number | null} firstMover
 * @property {Set<number>} movingNow Body indices over the threshold at this step.
 * @property {Map<number, number>} removedAt Body index → the step it was removed at.
 */

/** @type {Record<string, [string, string]>} */
const WOOD = { wood: ['#d39b5b', '#7a4b1c'], stone: ['#a5a5a5', '#555'], ice: ['#bde7f7', '#4a90b0'] };
/** @type {Record<string, [string, string]>} */
const KIND_COLOURS = { pig: ['#7bc043', '#3c6e1a'], tnt: ['#d9412b', '#7a1a0e'], platform: ['#777', '#333'] };
export const HIGHLIGHT = { first: '#1565c0', moving: '#ef6c00', dead: '#c62828', selected: '#d500f9', contact: '#e91e63' };
/** The outlined look's block edge: grey reads as an edge between two black blocks and on white. */
const OUTLINE = '#9a9a9a';
/** Contacts are shown for this many steps after they begin. */
const CONTACT_STEPS = 6;
/** Velocity arrows: world units drawn per unit/s (0.15 s of travel). */
const VECTOR_SCALE = 0.15;

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {ReadonlyArray<Path>} paths
 * @param {PoseAt} pose
 */
function tracePaths(ctx, view, paths, pose) {
  ctx.beginPath();
  for (const path of paths) {
    const placed = placePath(path, pose.x, pose.y, pose.angle);
    placed.forEach(([x, y], i) => {
      const [px, py] = worldToPixel(view, x, y);
      if (i === 0) ctx.moveTo(px, py);
      else ctx.lineTo(px, py);
    });
    ctx.closePath();
  }
}

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} x0
 * @param {number} y0
 * @param {number} x1
 * @param {number} y1
 */
function arrow(ctx, x0, y0, x1, y1) {
  const len = Math.hypot(x1 - x0, y1 - y0);
  if (len < 2) return;
  const a = Math.atan2(y1 - y0, x1 - x0);
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
  ctx.stroke();
}

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} width
 * @param {number} height
 * @param {Scene} scene
 */
export function drawScene(ctx, width, height, scene) {
  const { meta, frames, step, view } = scene;
  ctx.save();
  drawBackground(ctx, width, height, scene);
  const poses = meta.bodies.map((_, i) => poseAt(frames, step, i));
  meta.bodies.forEach((body, i) => {
    if ((scene.removedAt.get(i) ?? Infinity) <= step) return;
    drawBody(ctx, view, body, poses[i], scene.style);
    if (scene.highlights) drawHighlight(ctx, view, body, i, poses[i], scene);
  });
  if (scene.labels) drawLabels(ctx, view, meta, poses, scene, step, scene.style);
  if (scene.vectors) drawVectors(ctx, view, poses, scene, step);
  if (scene.contacts) drawContacts(ctx, view, meta, poses, step);
  ctx.restore();
}

/**
 * The sky (white, or light blue in wood mode) and the ground: drawn in wood mode; in black mode only a faint line (the evaluator's camera does not render it).
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} width
 * @param {number} height
 * @param {Scene} scene
 */
function drawBackground(ctx, width, height, scene) {
  const { meta, view, style } = scene;
  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = style === 'wood' ? '#dff1fb' : '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const [gl, gt] = worldToPixel(view, meta.ground.left, meta.ground.top);
  const [gr] = worldToPixel(view, meta.ground.right, meta.ground.top);
  if (style === 'wood') {
    ctx.fillStyle = '#8d6e4a';
    ctx.fillRect(gl, gt, gr - gl, height - gt);
    ctx.fillStyle = '#6ab04c';
    ctx.fillRect(gl, gt, gr - gl, Math.max(2, 0.05 * view.scale));
  } else if (scene.highlights) {
    ctx.strokeStyle = '#cfcfcf';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(gl, gt + 0.5);
    ctx.lineTo(gr, gt + 0.5);
    ctx.stroke();
  }
}

/**
 * One body in the chosen look: the evaluator's black (dead ones invisible), outlined black, or wood colours (dead ones faded).
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {ViewerBody} body
 * @param {PoseAt} pose
 * @param {Look} style
 */
function drawBody(ctx, view, body, pose, style) {
  const dead = !pose.alive;
  if (style === 'black' || style === 'outlined') {
    // The evaluator's image: layer-10 objects in solid black at their OCR sprite size; dead ones are invisible.
    if (!dead && body.draw) {
      tracePaths(ctx, view, body.draw, pose);
      ctx.fillStyle = '#000';
      ctx.fill('evenodd');
      if (style === 'outlined') {
        ctx.strokeStyle = OUTLINE;
        ctx.lineWidth = 1;
        ctx.stroke();
      }
    }
    return;
  }
  const [fill, edge] = body.kind === 'block' ? (WOOD[body.material ?? 'wood'] ?? WOOD.wood) : (KIND_COLOURS[body.kind] ?? ['#999', '#333']);
  tracePaths(ctx, view, body.outline, pose);
  ctx.globalAlpha = dead ? 0.35 : 1;
  ctx.fillStyle = fill;
  ctx.fill('evenodd');
  ctx.strokeStyle = edge;
  ctx.lineWidth = 1;
  ctx.stroke();
  ctx.globalAlpha = 1;
}

/**
 * The body's highlight, in order of precedence: selected, dead (dashed), first mover (with its "1st" mark), moving now.
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {ViewerBody} body
 * @param {number} i
 * @param {PoseAt} pose
 * @param {Scene} scene
 */
function drawHighlight(ctx, view, body, i, pose, scene) {
  const dead = !pose.alive;
  let colour;
  let lineWidth = 2;
  if (scene.selected === body.id) {
    colour = HIGHLIGHT.selected;
    lineWidth = 3;
  } else if (dead) colour = HIGHLIGHT.dead;
  else if (scene.firstMover === body.id) {
    colour = HIGHLIGHT.first;
    lineWidth = 3;
  } else if (scene.movingNow.has(i)) colour = HIGHLIGHT.moving;
  if (!colour) return;
  tracePaths(ctx, view, body.outline, pose);
  ctx.strokeStyle = colour;
  ctx.lineWidth = lineWidth;
  ctx.setLineDash(dead ? [5, 4] : []);
  ctx.stroke();
  ctx.setLineDash([]);
  if (scene.firstMover === body.id) drawFirstMoverMark(ctx, view, body, pose);
}

/**
 * "1st" just above the block's top edge, clear of its number at the centre.
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {ViewerBody} body
 * @param {PoseAt} pose
 */
function drawFirstMoverMark(ctx, view, body, pose) {
  let top = Infinity;
  let right = -Infinity;
  for (const path of body.outline) {
    for (const [x, y] of placePath(path, pose.x, pose.y, pose.angle)) {
      const [px, py] = worldToPixel(view, x, y);
      top = Math.min(top, py);
      right = Math.max(right, px);
    }
  }
  ctx.fillStyle = HIGHLIGHT.first;
  ctx.font = 'bold 12px sans-serif';
  ctx.textAlign = 'right';
  ctx.fillText('1st', right, top - 4);
  ctx.textAlign = 'start';
}

/**
 * Each body's velocity as an arrow from its centre (VECTOR_SCALE seconds of travel).
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {PoseAt[]} poses
 * @param {Scene} scene
 * @param {number} step
 */
function drawVectors(ctx, view, poses, scene, step) {
  ctx.strokeStyle = '#00897b';
  ctx.lineWidth = 1.5;
  poses.forEach((pose, i) => {
    if ((scene.removedAt.get(i) ?? Infinity) <= step) return;
    const [x0, y0] = worldToPixel(view, pose.x, pose.y);
    const [x1, y1] = worldToPixel(view, pose.x + pose.vx * VECTOR_SCALE, pose.y + pose.vy * VECTOR_SCALE);
    arrow(ctx, x0, y0, x1, y1);
  });
}

/**
 * Contacts that began in the last CONTACT_STEPS steps: a fading ring sized by the relative speed, labelled when fast.
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {ViewerMeta} meta
 * @param {PoseAt[]} poses
 * @param {number} step
 */
function drawContacts(ctx, view, meta, poses, step) {
  for (const e of meta.events) {
    if (e.kind !== 'contact' || e.step > step || e.step <= step - CONTACT_STEPS) continue;
    const a = poses[e.a];
    if (!a) continue;
    const b = e.b >= 0 ? poses[e.b] : undefined;
    // Events carry no contact point: mark between the two centres (or under the body for the ground).
    const x = b ? (a.x + b.x) / 2 : a.x;
    const y = b ? (a.y + b.y) / 2 : meta.ground.top;
    const [px, py] = worldToPixel(view, x, y);
    const r = 3 + Math.min(12, e.relativeSpeed * 3);
    ctx.globalAlpha = 1 - (step - e.step) / CONTACT_STEPS;
    ctx.strokeStyle = HIGHLIGHT.contact;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(px, py, r, 0, 2 * Math.PI);
    ctx.stroke();
    if (e.relativeSpeed >= 0.5) {
      ctx.fillStyle = HIGHLIGHT.contact;
      ctx.font = '11px sans-serif';
      ctx.fillText(`${e.relativeSpeed.toFixed(2)} u/s`, px + r + 2, py);
    }
    ctx.globalAlpha = 1;
  }
}

/**
 * Each body's number (the explanation's #id) at its centre, in a halo so it reads on black, on wood
 * and on white; the selected body's number in the selection colour; where each label went into `scene.placedLabels`.
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {ViewerMeta} meta
 * @param {PoseAt[]} poses
 * @param {Scene} scene
 * @param {number} step
 * @param {Look} style
 */
function drawLabels(ctx, view, meta, poses, scene, step, style) {
  const size = labelFontSize(view.scale);
  ctx.font = `bold ${size}px sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineJoin = 'round';
  const onBlack = style !== 'wood';
  meta.bodies.forEach((body, i) => {
    if ((scene.removedAt.get(i) ?? Infinity) <= step) return;
    const pose = poses[i];
    const [px, py] = worldToPixel(view, pose.x, pose.y);
    const text = String(body.id);
    ctx.globalAlpha = pose.alive ? 1 : 0.5;
    ctx.lineWidth = 3;
    ctx.strokeStyle = onBlack ? '#000' : '#fff';
    ctx.strokeText(text, px, py);
    ctx.fillStyle = scene.selected === body.id ? HIGHLIGHT.selected : onBlack ? '#fff' : '#111';
    ctx.fillText(text, px, py);
    scene.placedLabels?.push([body.id, Math.round(px), Math.round(py)]);
  });
  ctx.globalAlpha = 1;
  ctx.textAlign = 'start';
  ctx.textBaseline = 'alphabetic';
}
