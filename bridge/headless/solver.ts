import { Settings, Solver } from 'planck';

/**
 * A faster island solver for planck.js 1.4.2 that computes exactly what planck computes.
 *
 * Profiling `sbeval simulate` showed ~65 % of the time in planck's contact solver: the evaluator's 100
 * velocity iterations per step call `Contact.solveVelocityConstraint` once per contact and iteration,
 * and each call walks contact → fixture → body → velocity objects and goes through small Vec2 helpers
 * that store into shared scratch vectors. This module replaces `Solver.prototype.solveIsland` with one
 * that runs the velocity iterations over typed arrays: before the iterations, each contact's
 * constraint (masses, normal, contact arms, effective masses, impulses) and each island body's
 * velocity are copied into Float64Arrays; the iterations run in one loop over those arrays; impulses
 * and velocities are copied back. Everything else of the step (velocity integration, constraint
 * set-up and warm start, position integration, position iterations, sleep) is planck's own code path,
 * transcribed statement by statement or called as is.
 *
 * Why the results are the same bits: every value is an IEEE double before and after (Float64Array
 * holds doubles exactly), JavaScript never fuses or reorders floating-point operations, and each
 * expression below is planck's, written out with the same operands in the same order (the helper each
 * one replaces is named beside it). test/headless/solver.test.ts compares whole trials bit for bit
 * against planck's own solver, and `sbeval verify` replays the recorded corpus.
 *
 * Scope: islands without joints (Science Birds levels have none); an island with joints, or a step
 * with sub-stepping, uses planck's own `solveIsland`.
 */

interface V2 {
  x: number;
  y: number;
}

interface IslandBody {
  m_sweep: { c: V2; a: number; c0: V2; a0: number };
  m_linearVelocity: V2;
  m_angularVelocity: number;
  m_force: V2;
  m_torque: number;
  m_gravityScale: number;
  m_invMass: number;
  m_invI: number;
  m_linearDamping: number;
  m_angularDamping: number;
  m_autoSleepFlag: boolean;
  m_sleepTime: number;
  c_position: { c: V2; a: number };
  c_velocity: { v: V2; w: number };
  isDynamic(): boolean;
  isStatic(): boolean;
  setAwake(flag: boolean): void;
  synchronizeTransform(): void;
}

interface VelocityPoint {
  rA: V2;
  rB: V2;
  normalImpulse: number;
  tangentImpulse: number;
  normalMass: number;
  tangentMass: number;
  velocityBias: number;
}

interface IslandContact {
  m_fixtureA: { m_body: IslandBody | null } | null;
  m_fixtureB: { m_body: IslandBody | null } | null;
  v_points: VelocityPoint[];
  v_normal: V2;
  v_normalMass: { ex: V2; ey: V2 };
  v_K: { ex: V2; ey: V2 };
  v_pointCount: number;
  v_tangentSpeed: number;
  v_friction: number;
  v_invMassA: number;
  v_invMassB: number;
  v_invIA: number;
  v_invIB: number;
  initConstraint(step: Step): void;
  initVelocityConstraint(step: Step): void;
  warmStartConstraint(step: Step): void;
  storeConstraintImpulses(step: Step): void;
  solvePositionConstraint(step: Step): number;
}

interface Step {
  dt: number;
  velocityIterations: number;
  positionIterations: number;
  warmStarting: boolean;
  blockSolve: boolean;
}

interface IslandSolver {
  m_world: { m_gravity: V2; m_allowSleep: boolean };
  m_bodies: IslandBody[];
  m_contacts: IslandContact[];
  m_joints: unknown[];
  postSolveIsland(): void;
}

// Per contact, in one Float64Array: the constants of its velocity constraint, then per point
// (2 at most) its arms, masses, bias and running impulses, then the 2 × 2 block-solver matrices.
const MA = 0;
const IA = 1;
const MB = 2;
const IB = 3;
const NX = 4;
const NY = 5;
const FRICTION = 6;
const TANGENT_SPEED = 7;
const POINT0 = 8;
const RAX = 0;
const RAY = 1;
const RBX = 2;
const RBY = 3;
const NORMAL_MASS = 4;
const TANGENT_MASS = 5;
const BIAS = 6;
const NORMAL_IMPULSE = 7;
const TANGENT_IMPULSE = 8;
const POINT_STRIDE = 9;
const K = POINT0 + 2 * POINT_STRIDE; // K.ex.x, K.ex.y, K.ey.x, K.ey.y
const NM = K + 4; // normalMass.ex.x, .ex.y, .ey.x, .ey.y
const STRIDE = NM + 4;

/** Scratch arrays, grown as islands need (one solver per thread; a step solves islands one at a time). */
let constraints = new Float64Array(64 * STRIDE);
let ends = new Int32Array(64 * 2);
let counts = new Int32Array(64);
let velocities = new Float64Array(64 * 3);

const planckSolveIsland = Solver.prototype.solveIsland;

/** Which island solver planck runs: its own (`planck`) or the typed-array one of this module (`typed`, the default). */
export type IslandSolverKind = 'planck' | 'typed';

/**
 * Selects the island solver for every planck world in this thread (planck's solver is a prototype
 * method, so this is process-wide per thread, like planck's `Settings`). Both give the same bits;
 * `planck` exists to compare against (tests, `npm run bench`).
 */
export function useIslandSolver(kind: IslandSolverKind): void {
  (Solver.prototype as unknown as { solveIsland: unknown }).solveIsland = kind === 'typed' ? solveIslandTyped : planckSolveIsland;
}

export function islandSolverInUse(): IslandSolverKind {
  return Solver.prototype.solveIsland === planckSolveIsland ? 'planck' : 'typed';
}

function solveIslandTyped(this: IslandSolver, step: Step): void {
  if (this.m_joints.length > 0 || !indexIsland(this.m_bodies, this.m_contacts)) {
    planckSolveIsland.call(this as unknown as Solver, step as never);
    return;
  }
  const world = this.m_world;
  const gravity = world.m_gravity;
  const allowSleep = world.m_allowSleep;
  const h = step.dt;
  const bodies = this.m_bodies;
  const contacts = this.m_contacts;

  // Integrate velocities (planck: copyVec2, plusScaleVec2, scaleVec2 on scratch c, v).
  for (let i = 0; i < bodies.length; ++i) {
    const body = bodies[i]!;
    const cx = body.m_sweep.c.x;
    const cy = body.m_sweep.c.y;
    const a = body.m_sweep.a;
    let vx = body.m_linearVelocity.x;
    let vy = body.m_linearVelocity.y;
    let w = body.m_angularVelocity;
    body.m_sweep.c0.x = body.m_sweep.c.x;
    body.m_sweep.c0.y = body.m_sweep.c.y;
    body.m_sweep.a0 = body.m_sweep.a;
    if (body.isDynamic()) {
      const g = h * body.m_gravityScale;
      vx += g * gravity.x;
      vy += g * gravity.y;
      const f = h * body.m_invMass;
      vx += f * body.m_force.x;
      vy += f * body.m_force.y;
      w += h * body.m_invI * body.m_torque;
      const damping = 1 / (1 + h * body.m_linearDamping);
      vx = damping * vx;
      vy = damping * vy;
      w *= 1 / (1 + h * body.m_angularDamping);
    }
    body.c_position.c.x = cx;
    body.c_position.c.y = cy;
    body.c_position.a = a;
    body.c_velocity.v.x = vx;
    body.c_velocity.v.y = vy;
    body.c_velocity.w = w;
  }

  for (let i = 0; i < contacts.length; ++i) contacts[i]!.initConstraint(step);
  for (let i = 0; i < contacts.length; ++i) contacts[i]!.initVelocityConstraint(step);
  if (step.warmStarting) {
    for (let i = 0; i < contacts.length; ++i) contacts[i]!.warmStartConstraint(step);
  }

  solveVelocities(bodies, contacts, step.velocityIterations, step.blockSolve);

  for (let i = 0; i < contacts.length; ++i) contacts[i]!.storeConstraintImpulses(step);

  // Integrate positions (planck: scaleVec2 translation, lengthSqrVec2, mulVec2, plusScaleVec2).
  const maxTranslation = Settings.maxTranslation * Settings.lengthUnitsPerMeter;
  const maxTranslationSquared = Settings.maxTranslation * Settings.lengthUnitsPerMeter * Settings.maxTranslation * Settings.lengthUnitsPerMeter;
  const maxRotation = Settings.maxRotation;
  const maxRotationSquared = Settings.maxRotation * Settings.maxRotation;
  for (let i = 0; i < bodies.length; ++i) {
    const body = bodies[i]!;
    let cx = body.c_position.c.x;
    let cy = body.c_position.c.y;
    let a = body.c_position.a;
    let vx = body.c_velocity.v.x;
    let vy = body.c_velocity.v.y;
    let w = body.c_velocity.w;
    const tx = h * vx;
    const ty = h * vy;
    const translationLengthSqr = tx * tx + ty * ty;
    if (translationLengthSqr > maxTranslationSquared) {
      const ratio = maxTranslation / Math.sqrt(translationLengthSqr);
      vx *= ratio;
      vy *= ratio;
    }
    const rotation = h * w;
    if (rotation * rotation > maxRotationSquared) {
      const ratio = maxRotation / Math.abs(rotation);
      w *= ratio;
    }
    cx += h * vx;
    cy += h * vy;
    a += h * w;
    body.c_position.c.x = cx;
    body.c_position.c.y = cy;
    body.c_position.a = a;
    body.c_velocity.v.x = vx;
    body.c_velocity.v.y = vy;
    body.c_velocity.w = w;
  }

  let positionSolved = false;
  const linearSlop = Settings.linearSlop * Settings.lengthUnitsPerMeter;
  for (let i = 0; i < step.positionIterations; ++i) {
    let minSeparation = 0;
    for (let j = 0; j < contacts.length; ++j) {
      const separation = contacts[j]!.solvePositionConstraint(step);
      minSeparation = Math.min(minSeparation, separation);
    }
    if (minSeparation >= -3 * linearSlop) {
      positionSolved = true;
      break;
    }
  }

  for (let i = 0; i < bodies.length; ++i) {
    const body = bodies[i]!;
    body.m_sweep.c.x = body.c_position.c.x;
    body.m_sweep.c.y = body.c_position.c.y;
    body.m_sweep.a = body.c_position.a;
    body.m_linearVelocity.x = body.c_velocity.v.x;
    body.m_linearVelocity.y = body.c_velocity.v.y;
    body.m_angularVelocity = body.c_velocity.w;
    body.synchronizeTransform();
  }

  this.postSolveIsland();

  if (allowSleep) {
    let minSleepTime = Infinity;
    const linTolSqr = Settings.linearSleepTolerance * Settings.lengthUnitsPerMeter * Settings.linearSleepTolerance * Settings.lengthUnitsPerMeter;
    const angTolSqr = Settings.angularSleepTolerance * Settings.angularSleepTolerance;
    for (let i = 0; i < bodies.length; ++i) {
      const body = bodies[i]!;
      if (body.isStatic()) continue;
      const v = body.m_linearVelocity;
      if (body.m_autoSleepFlag == false || body.m_angularVelocity * body.m_angularVelocity > angTolSqr || v.x * v.x + v.y * v.y > linTolSqr) {
        body.m_sleepTime = 0;
        minSleepTime = 0;
      } else {
        body.m_sleepTime += h;
        minSleepTime = Math.min(minSleepTime, body.m_sleepTime);
      }
    }
    if (minSleepTime >= Settings.timeToSleep && positionSolved) {
      for (let i = 0; i < bodies.length; ++i) bodies[i]!.setAwake(false);
    }
  }
}

/**
 * Numbers the island's bodies and records each contact's two body numbers (`ends`); false when a
 * contact's body is not in the island (never the case for planck's islands, which hold both bodies of
 * every contact they hold: the caller then leaves the island to planck).
 */
function indexIsland(bodies: readonly IslandBody[], contacts: readonly IslandContact[]): boolean {
  const nc = contacts.length;
  if (ends.length < nc * 2) ends = new Int32Array(Math.max(nc * 2, ends.length * 2));
  const index = new Map<IslandBody, number>();
  for (let i = 0; i < bodies.length; ++i) index.set(bodies[i]!, i);
  for (let k = 0; k < nc; ++k) {
    const contact = contacts[k]!;
    const fixtureA = contact.m_fixtureA;
    const fixtureB = contact.m_fixtureB;
    const bodyA = fixtureA === null ? null : fixtureA.m_body;
    const bodyB = fixtureB === null ? null : fixtureB.m_body;
    if (bodyA === null || bodyB === null) {
      // planck's solveVelocityConstraint returns at once for such a contact: it takes no part.
      ends[k * 2] = -1;
      ends[k * 2 + 1] = -1;
      continue;
    }
    const a = index.get(bodyA);
    const b = index.get(bodyB);
    if (a === undefined || b === undefined) return false;
    ends[k * 2] = a;
    ends[k * 2 + 1] = b;
  }
  return true;
}

/**
 * The velocity iterations of planck's `Contact.solveVelocityConstraint` over typed arrays. Each
 * contact's velocities are read, updated through its points (friction first, then the normal
 * impulses, one point at a time or with the 2 × 2 block solver) and written back, contact after
 * contact, iteration after iteration — planck's order.
 */
function solveVelocities(bodies: readonly IslandBody[], contacts: readonly IslandContact[], iterations: number, blockSolve: boolean): void {
  const nb = bodies.length;
  const nc = contacts.length;
  if (constraints.length < nc * STRIDE) constraints = new Float64Array(Math.max(nc, (constraints.length / STRIDE) * 2) * STRIDE);
  if (counts.length < nc) counts = new Int32Array(Math.max(nc, counts.length * 2));
  if (velocities.length < nb * 3) velocities = new Float64Array(Math.max(nb, (velocities.length / 3) * 2) * 3);
  const C = constraints;
  const V = velocities;

  for (let i = 0; i < nb; ++i) {
    const body = bodies[i]!;
    V[i * 3] = body.c_velocity.v.x;
    V[i * 3 + 1] = body.c_velocity.v.y;
    V[i * 3 + 2] = body.c_velocity.w;
  }
  for (let k = 0; k < nc; ++k) {
    if (ends[k * 2]! < 0) {
      counts[k] = -1;
      continue;
    }
    const contact = contacts[k]!;
    const o = k * STRIDE;
    C[o + MA] = contact.v_invMassA;
    C[o + IA] = contact.v_invIA;
    C[o + MB] = contact.v_invMassB;
    C[o + IB] = contact.v_invIB;
    C[o + NX] = contact.v_normal.x;
    C[o + NY] = contact.v_normal.y;
    C[o + FRICTION] = contact.v_friction;
    C[o + TANGENT_SPEED] = contact.v_tangentSpeed;
    counts[k] = contact.v_pointCount;
    // Both points, whatever the count: planck's block solver reads both whenever the count is not 1.
    for (let j = 0; j < 2; ++j) {
      const vcp = contact.v_points[j]!;
      const p = o + POINT0 + j * POINT_STRIDE;
      C[p + RAX] = vcp.rA.x;
      C[p + RAY] = vcp.rA.y;
      C[p + RBX] = vcp.rB.x;
      C[p + RBY] = vcp.rB.y;
      C[p + NORMAL_MASS] = vcp.normalMass;
      C[p + TANGENT_MASS] = vcp.tangentMass;
      C[p + BIAS] = vcp.velocityBias;
      C[p + NORMAL_IMPULSE] = vcp.normalImpulse;
      C[p + TANGENT_IMPULSE] = vcp.tangentImpulse;
    }
    C[o + K] = contact.v_K.ex.x;
    C[o + K + 1] = contact.v_K.ex.y;
    C[o + K + 2] = contact.v_K.ey.x;
    C[o + K + 3] = contact.v_K.ey.y;
    C[o + NM] = contact.v_normalMass.ex.x;
    C[o + NM + 1] = contact.v_normalMass.ex.y;
    C[o + NM + 2] = contact.v_normalMass.ey.x;
    C[o + NM + 3] = contact.v_normalMass.ey.y;
  }

  for (let it = 0; it < iterations; ++it) {
    for (let k = 0; k < nc; ++k) {
      const pointCount = counts[k]!;
      if (pointCount < 0) continue;
      solveContact(C, V, k * STRIDE, ends[k * 2]! * 3, ends[k * 2 + 1]! * 3, pointCount, blockSolve);
    }
  }

  for (let k = 0; k < nc; ++k) {
    if (counts[k]! < 0) continue;
    const contact = contacts[k]!;
    for (let j = 0; j < 2; ++j) {
      const vcp = contact.v_points[j]!;
      const p = k * STRIDE + POINT0 + j * POINT_STRIDE;
      vcp.normalImpulse = C[p + NORMAL_IMPULSE]!;
      vcp.tangentImpulse = C[p + TANGENT_IMPULSE]!;
    }
  }
  for (let i = 0; i < nb; ++i) {
    const body = bodies[i]!;
    body.c_velocity.v.x = V[i * 3]!;
    body.c_velocity.v.y = V[i * 3 + 1]!;
    body.c_velocity.w = V[i * 3 + 2]!;
  }
}

/** One `solveVelocityConstraint` call on contact record `o` between the velocities at `a` and `b`. */
function solveContact(C: Float64Array, V: Float64Array, o: number, a: number, b: number, pointCount: number, blockSolve: boolean): void {
  const mA = C[o + MA]!;
  const iA = C[o + IA]!;
  const mB = C[o + MB]!;
  const iB = C[o + IB]!;
  let vAx = V[a]!;
  let vAy = V[a + 1]!;
  let wA = V[a + 2]!;
  let vBx = V[b]!;
  let vBy = V[b + 1]!;
  let wB = V[b + 2]!;
  const nx = C[o + NX]!;
  const ny = C[o + NY]!;
  // crossVec2Num(tangent, normal, 1): (1 · n.y, −1 · n.x)
  const tx = 1 * ny;
  const ty = -1 * nx;
  const friction = C[o + FRICTION]!;
  const tangentSpeed = C[o + TANGENT_SPEED]!;

  for (let j = 0; j < pointCount; ++j) {
    const p = o + POINT0 + j * POINT_STRIDE;
    const rAx = C[p + RAX]!;
    const rAy = C[p + RAY]!;
    const rBx = C[p + RBX]!;
    const rBy = C[p + RBY]!;
    // dv = 0 + vB + cross(wB, rB) − vA − cross(wA, rA)   (zeroVec2, plusVec2, crossNumVec2, minusVec2)
    let dvx = 0;
    let dvy = 0;
    dvx += vBx;
    dvy += vBy;
    dvx += -wB * rBy;
    dvy += wB * rBx;
    dvx -= vAx;
    dvy -= vAy;
    dvx -= -wA * rAy;
    dvy -= wA * rAx;
    const vt = dvx * tx + dvy * ty - tangentSpeed;
    let lambda = C[p + TANGENT_MASS]! * -vt;
    const maxFriction = friction * C[p + NORMAL_IMPULSE]!;
    const tangentImpulse = C[p + TANGENT_IMPULSE]!;
    let newImpulse = tangentImpulse + lambda;
    // clamp(x, −max, max)
    if (newImpulse < -maxFriction) newImpulse = -maxFriction;
    else if (newImpulse > maxFriction) newImpulse = maxFriction;
    lambda = newImpulse - tangentImpulse;
    C[p + TANGENT_IMPULSE] = newImpulse;
    // scaleVec2(P, lambda, tangent); minusScaleVec2(vA, mA, P); crossVec2Vec2(rA, P); ...
    const Px = lambda * tx;
    const Py = lambda * ty;
    vAx -= mA * Px;
    vAy -= mA * Py;
    wA -= iA * (rAx * Py - rAy * Px);
    vBx += mB * Px;
    vBy += mB * Py;
    wB += iB * (rBx * Py - rBy * Px);
  }

  if (pointCount == 1 || blockSolve == false) {
    for (let j = 0; j < pointCount; ++j) {
      const p = o + POINT0 + j * POINT_STRIDE;
      const rAx = C[p + RAX]!;
      const rAy = C[p + RAY]!;
      const rBx = C[p + RBX]!;
      const rBy = C[p + RBY]!;
      let dvx = 0;
      let dvy = 0;
      dvx += vBx;
      dvy += vBy;
      dvx += -wB * rBy;
      dvy += wB * rBx;
      dvx -= vAx;
      dvy -= vAy;
      dvx -= -wA * rAy;
      dvy -= wA * rAx;
      const vn = dvx * nx + dvy * ny;
      let lambda = -C[p + NORMAL_MASS]! * (vn - C[p + BIAS]!);
      const normalImpulse = C[p + NORMAL_IMPULSE]!;
      const newImpulse = Math.max(normalImpulse + lambda, 0);
      lambda = newImpulse - normalImpulse;
      C[p + NORMAL_IMPULSE] = newImpulse;
      const Px = lambda * nx;
      const Py = lambda * ny;
      vAx -= mA * Px;
      vAy -= mA * Py;
      wA -= iA * (rAx * Py - rAy * Px);
      vBx += mB * Px;
      vBy += mB * Py;
      wB += iB * (rBx * Py - rBy * Px);
    }
  } else {
    const p1 = o + POINT0;
    const p2 = o + POINT0 + POINT_STRIDE;
    const r1Ax = C[p1 + RAX]!;
    const r1Ay = C[p1 + RAY]!;
    const r1Bx = C[p1 + RBX]!;
    const r1By = C[p1 + RBY]!;
    const r2Ax = C[p2 + RAX]!;
    const r2Ay = C[p2 + RAY]!;
    const r2Bx = C[p2 + RBX]!;
    const r2By = C[p2 + RBY]!;
    const ax = C[p1 + NORMAL_IMPULSE]!;
    const ay = C[p2 + NORMAL_IMPULSE]!;
    let dv1x = 0;
    let dv1y = 0;
    dv1x += vBx;
    dv1y += vBy;
    dv1x += -wB * r1By;
    dv1y += wB * r1Bx;
    dv1x -= vAx;
    dv1y -= vAy;
    dv1x -= -wA * r1Ay;
    dv1y -= wA * r1Ax;
    let dv2x = 0;
    let dv2y = 0;
    dv2x += vBx;
    dv2y += vBy;
    dv2x += -wB * r2By;
    dv2y += wB * r2Bx;
    dv2x -= vAx;
    dv2y -= vAy;
    dv2x -= -wA * r2Ay;
    dv2y -= wA * r2Ax;
    let vn1 = dv1x * nx + dv1y * ny;
    let vn2 = dv2x * nx + dv2y * ny;
    let bx = vn1 - C[p1 + BIAS]!;
    let by = vn2 - C[p2 + BIAS]!;
    const kexx = C[o + K]!;
    const kexy = C[o + K + 1]!;
    const keyx = C[o + K + 2]!;
    const keyy = C[o + K + 3]!;
    bx -= kexx * ax + keyx * ay;
    by -= kexy * ax + keyy * ay;
    let xx: number;
    let xy: number;
    let solved = false;
    // planck's `while (true)` over the four cases of the 2-point LCP, in its order.
    xx = -(C[o + NM]! * bx + C[o + NM + 2]! * by);
    xy = -(C[o + NM + 1]! * bx + C[o + NM + 3]! * by);
    if (xx >= 0 && xy >= 0) solved = true;
    if (!solved) {
      xx = -C[p1 + NORMAL_MASS]! * bx;
      xy = 0;
      vn1 = 0;
      vn2 = kexy * xx + by;
      if (xx >= 0 && vn2 >= 0) solved = true;
    }
    if (!solved) {
      xx = 0;
      xy = -C[p2 + NORMAL_MASS]! * by;
      vn1 = keyx * xy + bx;
      vn2 = 0;
      if (xy >= 0 && vn1 >= 0) solved = true;
    }
    if (!solved) {
      xx = 0;
      xy = 0;
      vn1 = bx;
      vn2 = by;
      if (vn1 >= 0 && vn2 >= 0) solved = true;
    }
    if (solved) {
      // subVec2(d, x, a); scaleVec2(P1, d.x, normal); scaleVec2(P2, d.y, normal);
      // combine3Vec2(vA, −mA, P1, −mA, P2, 1, vA); ...
      const dx = xx - ax;
      const dy = xy - ay;
      const P1x = dx * nx;
      const P1y = dx * ny;
      const P2x = dy * nx;
      const P2y = dy * ny;
      vAx = -mA * P1x + -mA * P2x + 1 * vAx;
      vAy = -mA * P1y + -mA * P2y + 1 * vAy;
      wA -= iA * (r1Ax * P1y - r1Ay * P1x + (r2Ax * P2y - r2Ay * P2x));
      vBx = mB * P1x + mB * P2x + 1 * vBx;
      vBy = mB * P1y + mB * P2y + 1 * vBy;
      wB += iB * (r1Bx * P1y - r1By * P1x + (r2Bx * P2y - r2By * P2x));
      C[p1 + NORMAL_IMPULSE] = xx;
      C[p2 + NORMAL_IMPULSE] = xy;
    }
  }

  V[a] = vAx;
  V[a + 1] = vAy;
  V[a + 2] = wA;
  V[b] = vBx;
  V[b + 1] = vBy;
  V[b + 2] = wB;
}

useIslandSolver('typed');
