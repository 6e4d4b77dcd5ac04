import { AABB, type Body, Box, Circle, type Contact, type Fixture, Polygon, Settings, Transform, testOverlap, Vec2, World } from 'planck';
import { DEFAULT_MATERIAL, TNT } from '../../levels/catalog.js';
import type { Level } from '../../levels/level.js';
import type { DamageFormula, Perturbation } from '../engine.js';
import { type BodyInfo, FIELD_COUNT, type SimEvent } from '../frames.js';
import { bodyInfos, groundTiles, type ObjectPlan, planObjects, worldHalfWidth } from './objects.js';
import { creationOrder, mulberry32, shuffledOrder } from './order.js';
import { secondsToSteps, WORLD_SETTINGS } from './settings.js';
// Installs the typed-array island solver (same bits as planck's, faster): solver.ts.
import './solver.js';
import type { Vec } from './geometry.js';

/**
 * One trial of one level in a planck.js world configured as the evaluator's Unity scene, plus the
 * game logic that runs beside Box2D there (Assets/Scripts/GameWorld/ABGameObject.cs, ABBlock.cs,
 * ABTNT.cs, ABGameWorld.cs of chatgpt4pcg/modified-science-birds):
 *
 * - damage at contact begin (`OnCollisionEnter2D` → `DealDamage(relativeVelocity.magnitude)`), once
 *   per collider pair, to every participant that has health (blocks, pigs, TNT; not the ground or
 *   platforms), applied after the physics step as Unity delivers collision callbacks after it;
 * - death at health ≤ 0 (`Die`): linear velocity set to zero, collider off (fixtures destroyed, the
 *   body keeps falling under gravity and damping), removal `_systemLifetime` later (blocks 0.5 s,
 *   pigs 0.2 s, TNT 0.1 s); TNT explodes when it dies;
 * - the out-of-world rule (`DestroyIfOutScreen`, every frame): an object whose x-extent lies
 *   entirely outside ±width·17.5/2 dies (again every frame while it stays outside).
 *
 * Birds and the slingshot are not simulated: the first bird hangs at the slingshot with gravity 0
 * and all of them are at x ≈ −9, far from anything a level places on the ground right of x = 2.
 */
interface TrialOptions {
  /** 1 = the evaluator's creation order; 2 = reversed; 3+ = a shuffle seeded by `seed` and the trial. */
  trial: number;
  damage: DamageFormula;
  /** Seed of the trial shuffles (derived from the level's content, so a level behaves the same anywhere). */
  seed: number;
  /** Robustness runs: creation order, position noise and warm starting varied (absent = the evaluator's trial). */
  perturbation?: Perturbation | undefined;
}

/** Fixture user data: the collider it belongs to (an object id ≥ 0, or −1 − tile index for the ground). */
interface ColliderRef {
  collider: number;
}

interface ObjectState {
  plan: ObjectPlan;
  /** Creation position (the plan's, plus a perturbed run's noise). */
  x: number;
  y: number;
  body: Body | undefined;
  health: number;
  dead: boolean;
  removed: boolean;
  removeAtStep: number;
  removalReason: 'death' | 'out-of-world';
  exploded: boolean;
  /** Last reported state (frozen after removal). */
  state: Float64Array;
  /** x and angle at which the out-of-world check last found the live object inside (NaN: none yet). */
  insideAt: Float64Array;
}

interface PendingEnter {
  a: number;
  b: number;
  relativeSpeed: number;
}

const GROUND_EVENT_ID = -1;

/**
 * The object plans of a level, made once per `Level` object: the evaluator's up to 3 trials of a level
 * (and its robustness runs) share them (planObjects is pure and plans are never written to; the
 * profile showed planning at ~1.4 % of a trial).
 */
const planCache = new WeakMap<Level, ObjectPlan[]>();
function plansOf(level: Level): ObjectPlan[] {
  let plans = planCache.get(level);
  if (!plans) {
    plans = planObjects(level);
    planCache.set(level, plans);
  }
  return plans;
}

/**
 * planck 1.4.2's broad-phase tree hands each query's stack back to a pool whose release sets
 * `stack.length = 0` — a slow builtin call (profiled at ~1.3 % of a trial) on a stack that a finished
 * query has already emptied. The pool here clears only a stack that still holds something: the same
 * stacks for every later query.
 */
function emptyStackRelease(world: World): void {
  const pool = (world as unknown as { m_broadPhase?: { m_tree?: { stackPool?: { _releaseFn?: unknown } } } }).m_broadPhase?.m_tree?.stackPool;
  if (pool && typeof pool._releaseFn === 'function') {
    pool._releaseFn = (stack: unknown[]) => {
      if (stack.length !== 0) stack.length = 0;
    };
  }
}

export class LevelWorld {
  readonly plans: ObjectPlan[];
  readonly bodies: BodyInfo[];
  readonly dt = WORLD_SETTINGS.dt;
  /** Steps done so far (0 right after creation). */
  step = 0;

  private readonly world: World;
  private readonly objects: ObjectState[];
  private readonly halfWidth: number;
  /** Touching fixture contacts per collider pair: Unity reports a collision enter once per collider pair. */
  private readonly touching = new Map<string, number>();
  private pending: PendingEnter[] = [];
  private events: SimEvent[] = [];

  constructor(
    level: Level,
    private readonly options: TrialOptions,
  ) {
    this.plans = plansOf(level);
    this.bodies = bodyInfos(this.plans);
    this.halfWidth = worldHalfWidth(level.width);
    this.world = new World({
      gravity: Vec2(WORLD_SETTINGS.gravity.x, WORLD_SETTINGS.gravity.y),
      allowSleep: WORLD_SETTINGS.allowSleep,
      warmStarting: options.perturbation?.warmStarting ?? WORLD_SETTINGS.warmStarting,
      continuousPhysics: WORLD_SETTINGS.continuousPhysics,
      subStepping: WORLD_SETTINGS.subStepping,
      blockSolve: WORLD_SETTINGS.blockSolve,
    });
    emptyStackRelease(this.world);
    this.world.on('begin-contact', (contact: Contact) => this.beginContact(contact));
    this.world.on('end-contact', (contact: Contact) => this.endContact(contact));

    // Ground first (DecodeLevel instantiates the Landscape tiles before any object): static colliders
    // without a Rigidbody2D all live on Unity's one static ground body.
    const ground = this.world.createBody({ type: 'static', position: Vec2(0, 0) });
    groundTiles(level.width).forEach((tile, index) => {
      ground.createFixture(new Box(tile.halfWidth, tile.halfHeight, Vec2(tile.x, tile.y), 0), {
        density: 0,
        friction: DEFAULT_MATERIAL.friction,
        restitution: DEFAULT_MATERIAL.bounciness,
        userData: { collider: -1 - index } satisfies ColliderRef,
      });
    });

    const perturbation = options.perturbation;
    // Position noise from its own stream (XML order), so it does not depend on the creation order.
    const noise = perturbation && perturbation.positionNoise > 0 ? mulberry32((perturbation.seed ^ 0x5bd1e995) >>> 0) : undefined;
    const jitter = (value: number) => (noise ? value + (noise() * 2 - 1) * (perturbation as Perturbation).positionNoise : value);
    this.objects = this.plans.map((plan) => ({
      plan,
      x: jitter(plan.x),
      y: jitter(plan.y),
      body: undefined,
      health: plan.body.life ?? Number.POSITIVE_INFINITY,
      dead: false,
      removed: false,
      removeAtStep: Number.POSITIVE_INFINITY,
      removalReason: 'death' as const,
      exploded: false,
      state: new Float64Array([plan.x, plan.y, plan.angle, 0, 0, 0]),
      insideAt: new Float64Array([Number.NaN, Number.NaN]),
    }));
    const order = perturbation?.shuffleOrder ? shuffledOrder(this.plans, perturbation.seed) : creationOrder(this.plans, options.trial, options.seed);
    for (const index of order) this.createBody(this.objects[index] as ObjectState);
    this.captureStates();
  }

  private createBody(object: ObjectState): void {
    const { plan } = object;
    const body = this.world.createBody({
      type: plan.body.bodyType,
      position: Vec2(object.x, object.y),
      angle: plan.angle,
      linearDamping: plan.body.linearDamping,
      angularDamping: plan.body.angularDamping,
      gravityScale: plan.body.gravityScale,
      allowSleep: true,
      awake: true,
    });
    for (const piece of plan.pieces) {
      body.createFixture(new Polygon(piece.map(([x, y]) => Vec2(x, y))), {
        density: WORLD_SETTINGS.density,
        friction: plan.friction,
        restitution: plan.restitution,
        userData: { collider: plan.id } satisfies ColliderRef,
      });
    }
    if (plan.body.bodyType === 'dynamic') {
      // Exact mass of the whole collider (holes subtracted, fixed prefab masses): Box2D's mass data
      // takes the inertia about the body origin.
      const { mass, cx, cy, inertia } = plan.mass;
      body.setMassData({ mass, center: Vec2(cx, cy), I: inertia + mass * (cx * cx + cy * cy) });
    }
    object.body = body;
  }

  private colliderOf(fixture: Fixture): number {
    return (fixture.getUserData() as ColliderRef).collider;
  }

  private pairKey(a: number, b: number): string {
    return a < b ? `${a}:${b}` : `${b}:${a}`;
  }

  private beginContact(contact: Contact): void {
    const a = this.colliderOf(contact.getFixtureA());
    const b = this.colliderOf(contact.getFixtureB());
    const key = this.pairKey(a, b);
    const count = this.touching.get(key) ?? 0;
    this.touching.set(key, count + 1);
    if (count > 0) return; // another piece of the same collider pair already touches
    this.pending.push({ a, b, relativeSpeed: this.relativeSpeed(contact) });
  }

  private endContact(contact: Contact): void {
    const key = this.pairKey(this.colliderOf(contact.getFixtureA()), this.colliderOf(contact.getFixtureB()));
    const count = (this.touching.get(key) ?? 1) - 1;
    if (count <= 0) this.touching.delete(key);
    else this.touching.set(key, count);
  }

  /**
   * `Collision2D.relativeVelocity.magnitude` at the moment the contact begins (before the step's
   * solver runs): `body` = |vA − vB| of the bodies' linear velocities; `contact-point` = the largest
   * |(vA + ωA × rA) − (vB + ωB × rB)| over the contact's manifold points.
   */
  private relativeSpeed(contact: Contact): number {
    const bodyA = contact.getFixtureA().getBody();
    const bodyB = contact.getFixtureB().getBody();
    if (this.options.damage === 'body') {
      const va = bodyA.getLinearVelocity();
      const vb = bodyB.getLinearVelocity();
      return Math.hypot(va.x - vb.x, va.y - vb.y);
    }
    const manifold = contact.getWorldManifold(null);
    let best = 0;
    const count = manifold?.pointCount ?? 0;
    for (let i = 0; i < count; i++) {
      const p = manifold!.points[i]!;
      const va = bodyA.getLinearVelocityFromWorldPoint(p);
      const vb = bodyB.getLinearVelocityFromWorldPoint(p);
      best = Math.max(best, Math.hypot(va.x - vb.x, va.y - vb.y));
    }
    return best;
  }

  /**
   * The cost of the next step for the simulation budget (budget.ts): dynamic bodies awake now plus
   * the contacts that involve one. Before the first step planck has not built its contact list, so
   * the pairs are counted from the broad phase (fixture boxes grown by planck's AABB margin, on
   * different bodies, at least one dynamic): the contacts the first step creates.
   */
  workload(): number {
    let cost = 0;
    for (let body = this.world.getBodyList(); body; body = body.getNext()) if (body.isDynamic() && body.isAwake()) cost += 1;
    if (this.step === 0) return cost + this.initialPairs();
    for (let contact = this.world.getContactList(); contact; contact = contact.getNext()) {
      const a = contact.getFixtureA().getBody();
      const b = contact.getFixtureB().getBody();
      if ((a.isDynamic() && a.isAwake()) || (b.isDynamic() && b.isAwake())) cost += 1;
    }
    return cost;
  }

  private initialPairs(): number {
    let pairs = 0;
    const margin = Settings.aabbExtension * Settings.lengthUnitsPerMeter;
    const box = new AABB();
    for (let body = this.world.getBodyList(); body; body = body.getNext()) {
      if (!body.isDynamic()) continue;
      for (let fixture = body.getFixtureList(); fixture; fixture = fixture.getNext()) {
        const own = fixture.getAABB(0);
        box.lowerBound.set(own.lowerBound.x - margin, own.lowerBound.y - margin);
        box.upperBound.set(own.upperBound.x + margin, own.upperBound.y + margin);
        this.world.queryAABB(box, (other) => {
          const otherBody = other.getBody();
          // A dynamic–dynamic pair once (from the object with the lower id), a dynamic–static pair once.
          if (otherBody !== body && (!otherBody.isDynamic() || this.colliderOf(fixture) < this.colliderOf(other))) pairs += 1;
          return true;
        });
      }
    }
    return pairs;
  }

  /** Advances one physics step (+ the game logic of that frame); returns the events of the step. */
  advance(): SimEvent[] {
    this.step += 1;
    this.events = [];
    // Removals due this frame (Invoke'd `WaitParticlesAndDestroy`): the object was last seen at the
    // end of the previous frame, so its reported state stays that one.
    for (const object of this.objects) {
      if (!object.removed && object.removeAtStep <= this.step) this.remove(object);
    }
    this.pending = [];
    this.world.step(this.dt, WORLD_SETTINGS.velocityIterations, WORLD_SETTINGS.positionIterations);
    for (const enter of this.pending) {
      const b = enter.b >= 0 ? enter.b : GROUND_EVENT_ID;
      const a = enter.a >= 0 ? enter.a : GROUND_EVENT_ID;
      // Events name an object first when there is one.
      const [first, second] = a >= 0 ? [a, b] : [b, a];
      this.events.push({ kind: 'contact', step: this.step, a: first, b: second, relativeSpeed: enter.relativeSpeed });
      if (enter.a >= 0) this.dealDamage(this.objects[enter.a] as ObjectState, enter.relativeSpeed);
      if (enter.b >= 0) this.dealDamage(this.objects[enter.b] as ObjectState, enter.relativeSpeed);
    }
    this.pending = [];
    this.outOfWorld();
    this.captureStates();
    return this.events;
  }

  /** `ABGameObject.DealDamage`; objects without an ABGameObject (platforms) take none. */
  private dealDamage(object: ObjectState, amount: number): void {
    if (object.plan.body.life === undefined || object.removed) return;
    object.health -= amount;
    this.events.push({ kind: 'damage', step: this.step, id: object.plan.id, amount, health: object.health });
    if (object.health <= 0) this.die(object, 'death');
  }

  /** `ABGameObject.Die` (and `ABTNT.Die`, which explodes first). Called again on a dead object it re-zeroes the velocity, as Unity does. */
  private die(object: ObjectState, reason: 'death' | 'out-of-world'): void {
    const body = object.body;
    if (!body || object.removed) return;
    if (object.plan.kind === 'tnt' && !object.exploded) {
      object.exploded = true;
      this.explode(object);
    }
    body.setLinearVelocity(Vec2(0, 0));
    if (!object.dead) {
      object.dead = true;
      object.removalReason = reason;
      object.removeAtStep = this.step + secondsToSteps(object.plan.body.deathLifetime ?? 0);
      this.events.push({ kind: 'destroyed', step: this.step, id: object.plan.id });
      for (let f = body.getFixtureList(); f; ) {
        const next = f.getNext();
        body.destroyFixture(f);
        f = next;
      }
    }
  }

  /**
   * `ABTNT.Explode`: every enabled collider with a rigidbody overlapping the circle (radius
   * `_explosionArea`) around the TNT, except the TNT itself, takes `damage / distance` and an impulse
   * `power / (2·distance)` away from the TNT (distance between object positions). The collider list is
   * taken before any damage is dealt, as `Physics2D.OverlapCircleAll` returns it.
   */
  private explode(tnt: ObjectState): void {
    const body = tnt.body as Body;
    const centre = body.getPosition().clone();
    this.events.push({ kind: 'explosion', step: this.step, id: tnt.plan.id, x: Math.fround(centre.x), y: Math.fround(centre.y) });
    const circle = new Circle(TNT.explosion.area);
    const circleXf = new Transform(centre, 0);
    const hit: ObjectState[] = [];
    for (const other of this.objects) {
      if (other === tnt || other.dead || other.removed || !other.body) continue;
      let overlaps = false;
      for (let f = other.body.getFixtureList(); f && !overlaps; f = f.getNext()) {
        overlaps = testOverlap(circle, 0, f.getShape(), 0, circleXf, other.body.getTransform());
      }
      if (overlaps) hit.push(other);
    }
    for (const other of hit) {
      const otherBody = other.body;
      if (!otherBody || other.removed) continue;
      const p = otherBody.getPosition();
      const dx = p.x - centre.x;
      const dy = p.y - centre.y;
      const distance = Math.hypot(dx, dy);
      this.dealDamage(other, distance > 0 ? TNT.explosion.damage / distance : Number.POSITIVE_INFINITY);
      if (distance > 0 && otherBody.isDynamic()) {
        const magnitude = TNT.explosion.power / (distance * 2);
        otherBody.applyLinearImpulse(Vec2((dx / distance) * magnitude, (dy / distance) * magnitude), otherBody.getWorldCenter(), true);
      }
    }
  }

  /** `ABGameObject.DestroyIfOutScreen` via `ABGameWorld.IsObjectOutOfWorld` (x only). */
  private outOfWorld(): void {
    for (const object of this.objects) {
      if (object.plan.body.life === undefined || object.removed || !object.body) continue;
      const position = object.body.getPosition();
      const x = position.x;
      let halfX = 0;
      if (!object.dead) {
        const angle = object.body.getAngle();
        // A live object found inside at exactly this x and angle is inside again (the answer is a
        // function of them alone): a body at rest is not measured again every step.
        if (Object.is(x, object.insideAt[0]) && Object.is(angle, object.insideAt[1])) continue;
        // The x-extent of worldOutline(object), computed in place (this runs for every object every
        // step): the same expressions in the same order, so the same bits, without the arrays.
        const c = Math.cos(angle);
        const s = Math.sin(angle);
        let minX = Number.POSITIVE_INFINITY;
        let maxX = Number.NEGATIVE_INFINITY;
        // Indexed, not `for (const [lx, ly] of …)`: the iterator and destructuring allocated on every
        // object and step (a tenth of the engine's allocated bytes in a heap-sampling profile).
        const outline = object.plan.outline[0] as Vec[];
        for (let k = 0; k < outline.length; k++) {
          const point = outline[k] as Vec;
          const px = position.x + c * point[0] - s * point[1];
          minX = Math.min(minX, px);
          maxX = Math.max(maxX, px);
        }
        halfX = (maxX - minX) / 2;
      }
      if (x - halfX > this.halfWidth || x + halfX < -this.halfWidth) this.die(object, object.dead ? object.removalReason : 'out-of-world');
      else if (!object.dead) {
        object.insideAt[0] = x;
        object.insideAt[1] = object.body.getAngle();
      }
    }
  }

  /**
   * True when no later step can change anything: every body that can move is asleep (planck only
   * wakes a body for a new contact, a force or an impulse, and sleeping bodies make no new contacts)
   * and no object is dying (a dead object keeps falling awake until its removal timer fires). Every
   * later frame then equals this one and no event can happen, so a trial may stop stepping here and
   * repeat the last frame (run.ts). Game logic adds nothing either: damage comes only from new
   * contacts, and an object outside the world died on the step it left it.
   */
  isResting(): boolean {
    for (const object of this.objects) {
      if (object.removed) continue;
      if (object.dead) return false;
      const body = object.body;
      if (body && !body.isStatic() && body.isAwake()) return false;
    }
    return true;
  }

  private remove(object: ObjectState): void {
    if (object.body) this.world.destroyBody(object.body);
    object.body = undefined;
    object.removed = true;
    object.state[3] = 0;
    object.state[4] = 0;
    object.state[5] = 0;
    this.events.push({ kind: 'removed', step: this.step, id: object.plan.id, reason: object.removalReason });
  }

  private captureStates(): void {
    for (const object of this.objects) {
      const body = object.body;
      if (!body || object.removed) continue;
      const p = body.getPosition();
      const v = body.getLinearVelocity();
      const s = object.state;
      s[0] = p.x;
      s[1] = p.y;
      s[2] = body.getAngle();
      s[3] = v.x;
      s[4] = v.y;
      s[5] = body.getAngularVelocity();
    }
  }

  /** Writes the current step's states (float32) and alive flags for every body, in XML order. */
  writeFrame(states: Float32Array, stateOffset: number, alive: Uint8Array, aliveOffset: number): void {
    // Element stores, not `states.set(object.state, …)` per object: the same float32 rounding of each
    // double (ToFloat32 both ways), without a typed-array call per object and step (profiled).
    const objects = this.objects;
    for (let i = 0; i < objects.length; i++) {
      const object = objects[i]!;
      const s = object.state;
      const o = stateOffset + i * FIELD_COUNT;
      for (let f = 0; f < FIELD_COUNT; f++) states[o + f] = s[f]!;
      alive[aliveOffset + i] = object.dead || object.removed ? 0 : 1;
    }
  }

  /** World-frame outline points of a live object's collider (for bounds). */
  worldOutline(object: ObjectState): Vec[] {
    const body = object.body as Body;
    const p = body.getPosition();
    const angle = body.getAngle();
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    const out: Vec[] = [];
    for (const path of object.plan.outline.slice(0, 1)) {
      for (const [lx, ly] of path) out.push([p.x + c * lx - s * ly, p.y + s * lx + c * ly]);
    }
    return out;
  }

  /** Mass and rotational inertia (about the centre of mass) of an object's body while it exists. */
  massOf(id: number): { mass: number; inertia: number } | undefined {
    const body = this.objects[id]?.body;
    return body ? { mass: body.getMass(), inertia: body.getInertia() - body.getMass() * Vec2.dot(body.getLocalCenter(), body.getLocalCenter()) } : undefined;
  }

  /** Live objects (collider on) with their current pose, for the renderer. */
  liveObjects(): Array<{ plan: ObjectPlan; x: number; y: number; angle: number }> {
    const out: Array<{ plan: ObjectPlan; x: number; y: number; angle: number }> = [];
    for (const object of this.objects) {
      if (object.dead || object.removed || !object.body) continue;
      const p = object.body.getPosition();
      out.push({ plan: object.plan, x: p.x, y: p.y, angle: object.body.getAngle() });
    }
    return out;
  }
}
