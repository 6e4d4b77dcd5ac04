/**
 * Generates the WebAssembly kernel of the island solver's velocity iterations
 * (bridge/headless/solver-kernel.ts) from the WebAssembly text written out below, with wabt:
 *
 *   npx tsx scripts/solver-wasm.ts          # rewrites bridge/headless/solver-kernel.ts
 *
 * The kernel is planck 1.4.2's `Contact.solveVelocityConstraint`, iterated over every contact of an
 * island `iterations` times: the same IEEE-754 double operations with the same operands in the same
 * order as the JavaScript (bridge/headless/solver.ts `solveContact`, itself planck's). WebAssembly's
 * f64 arithmetic is IEEE-754 binary64 with round-to-nearest and no fused or reordered operations, and
 * `f64.max`/comparisons treat NaN and ±0 as `Math.max`/JavaScript comparisons do here (NaN stays NaN,
 * max(−0, +0) = +0, −0 ≥ 0), so it gives the same bits; test/headless/shortcuts.test.ts compares the
 * two kernels and planck's own solver on whole trials, and test/headless/solver-kernel.test.ts checks
 * that the committed bytes are this script's output.
 *
 * Memory layout (bytes; the caller fills it): contact k's constraint at 272·k (34 doubles, the layout
 * of solver.ts: masses, normal, friction, tangent speed, 2 points × 9, K, normal mass); then the
 * bodies' velocities (vx, vy, ω; 24 bytes each); then per contact 3 int32: point count (−1: skip) and
 * the byte offsets of its two bodies' velocities.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainModule } from '../core/main-module.js';

const L = (name: string) => `(local.get $${name})`;
const S = (name: string, e: string) => `(local.set $${name} ${e})`;
const ld = (off: number) => `(f64.load offset=${off} (local.get $o))`;
const st = (off: number, e: string) => `(f64.store offset=${off} (local.get $o) ${e})`;
const add = (a: string, b: string) => `(f64.add ${a} ${b})`;
const sub = (a: string, b: string) => `(f64.sub ${a} ${b})`;
const mul = (a: string, b: string) => `(f64.mul ${a} ${b})`;
const neg = (a: string) => `(f64.neg ${a})`;
const num = (v: number) => `(f64.const ${v})`;

/** Byte offsets in a contact record (solver.ts: POINT0 = 8 doubles, POINT_STRIDE = 9, K = 26, NM = 30). */
const RECORD_BYTES = 34 * 8;
const POINT0 = 8 * 8;
const POINT_BYTES = 9 * 8;
const FIELD = { rAx: 0, rAy: 8, rBx: 16, rBy: 24, normalMass: 32, tangentMass: 40, bias: 48, normalImpulse: 56, tangentImpulse: 64 } as const;
const K = 26 * 8;
const NM = 30 * 8;
const pt = (j: number, field: keyof typeof FIELD) => POINT0 + j * POINT_BYTES + FIELD[field];

/** dv = 0; dv += vB; dv += cross(wB, rB); dv −= vA; dv −= cross(wA, rA)   (zeroVec2, plusVec2, crossNumVec2, minusVec2) */
const relativeVelocity = (j: number, dx: string, dy: string) =>
  [
    S(dx, num(0)),
    S(dy, num(0)),
    S(dx, add(L(dx), L('vBx'))),
    S(dy, add(L(dy), L('vBy'))),
    S(dx, add(L(dx), mul(neg(L('wB')), ld(pt(j, 'rBy'))))),
    S(dy, add(L(dy), mul(L('wB'), ld(pt(j, 'rBx'))))),
    S(dx, sub(L(dx), L('vAx'))),
    S(dy, sub(L(dy), L('vAy'))),
    S(dx, sub(L(dx), mul(neg(L('wA')), ld(pt(j, 'rAy'))))),
    S(dy, sub(L(dy), mul(L('wA'), ld(pt(j, 'rAx'))))),
  ].join('\n');

/** vA −= mA·P; wA −= iA·cross(rA, P); vB += mB·P; wB += iB·cross(rB, P)   (minusScaleVec2, crossVec2Vec2, plusScaleVec2) */
const applyImpulse = (j: number) =>
  [
    S('vAx', sub(L('vAx'), mul(L('mA'), L('Px')))),
    S('vAy', sub(L('vAy'), mul(L('mA'), L('Py')))),
    S('wA', sub(L('wA'), mul(L('iA'), sub(mul(ld(pt(j, 'rAx')), L('Py')), mul(ld(pt(j, 'rAy')), L('Px')))))),
    S('vBx', add(L('vBx'), mul(L('mB'), L('Px')))),
    S('vBy', add(L('vBy'), mul(L('mB'), L('Py')))),
    S('wB', add(L('wB'), mul(L('iB'), sub(mul(ld(pt(j, 'rBx')), L('Py')), mul(ld(pt(j, 'rBy')), L('Px')))))),
  ].join('\n');

const friction = (j: number) => `
${relativeVelocity(j, 'dvx', 'dvy')}
${S('vt', sub(add(mul(L('dvx'), L('tx')), mul(L('dvy'), L('ty'))), L('ts')))}
${S('lambda', mul(ld(pt(j, 'tangentMass')), neg(L('vt'))))}
${S('maxF', mul(L('fr'), ld(pt(j, 'normalImpulse'))))}
${S('old', ld(pt(j, 'tangentImpulse')))}
${S('newI', add(L('old'), L('lambda')))}
(if (f64.lt (local.get $newI) (f64.neg (local.get $maxF)))
  (then ${S('newI', neg(L('maxF')))})
  (else (if (f64.gt (local.get $newI) (local.get $maxF)) (then ${S('newI', L('maxF'))}))))
${S('lambda', sub(L('newI'), L('old')))}
${st(pt(j, 'tangentImpulse'), L('newI'))}
${S('Px', mul(L('lambda'), L('tx')))}
${S('Py', mul(L('lambda'), L('ty')))}
${applyImpulse(j)}`;

const normalOnePoint = (j: number) => `
${relativeVelocity(j, 'dvx', 'dvy')}
${S('vn', add(mul(L('dvx'), L('nx')), mul(L('dvy'), L('ny'))))}
${S('lambda', mul(neg(ld(pt(j, 'normalMass'))), sub(L('vn'), ld(pt(j, 'bias')))))}
${S('old', ld(pt(j, 'normalImpulse')))}
${S('newI', `(f64.max ${add(L('old'), L('lambda'))} ${num(0)})`)}
${S('lambda', sub(L('newI'), L('old')))}
${st(pt(j, 'normalImpulse'), L('newI'))}
${S('Px', mul(L('lambda'), L('nx')))}
${S('Py', mul(L('lambda'), L('ny')))}
${applyImpulse(j)}`;

/** subVec2(d, x, a); P1 = d.x·n; P2 = d.y·n; combine3Vec2(vA, −mA, P1, −mA, P2, 1, vA); ... */
const blockApply = `
${S('dx', sub(L('xx'), L('ax')))} ${S('dy', sub(L('xy'), L('ay')))}
${S('P1x', mul(L('dx'), L('nx')))} ${S('P1y', mul(L('dx'), L('ny')))}
${S('P2x', mul(L('dy'), L('nx')))} ${S('P2y', mul(L('dy'), L('ny')))}
${S('vAx', add(add(mul(neg(L('mA')), L('P1x')), mul(neg(L('mA')), L('P2x'))), mul(num(1), L('vAx'))))}
${S('vAy', add(add(mul(neg(L('mA')), L('P1y')), mul(neg(L('mA')), L('P2y'))), mul(num(1), L('vAy'))))}
${S('wA', sub(L('wA'), mul(L('iA'), add(sub(mul(ld(pt(0, 'rAx')), L('P1y')), mul(ld(pt(0, 'rAy')), L('P1x'))), sub(mul(ld(pt(1, 'rAx')), L('P2y')), mul(ld(pt(1, 'rAy')), L('P2x')))))))}
${S('vBx', add(add(mul(L('mB'), L('P1x')), mul(L('mB'), L('P2x'))), mul(num(1), L('vBx'))))}
${S('vBy', add(add(mul(L('mB'), L('P1y')), mul(L('mB'), L('P2y'))), mul(num(1), L('vBy'))))}
${S('wB', add(L('wB'), mul(L('iB'), add(sub(mul(ld(pt(0, 'rBx')), L('P1y')), mul(ld(pt(0, 'rBy')), L('P1x'))), sub(mul(ld(pt(1, 'rBx')), L('P2y')), mul(ld(pt(1, 'rBy')), L('P2x')))))))}
${st(pt(0, 'normalImpulse'), L('xx'))} ${st(pt(1, 'normalImpulse'), L('xy'))}`;

const ge0 = (a: string, b: string) => `(i32.and (f64.ge (local.get $${a}) (f64.const 0)) (f64.ge (local.get $${b}) (f64.const 0)))`;

/** planck's block solver: the four cases of the 2-point LCP, in its order. */
const block = `
${S('ax', ld(pt(0, 'normalImpulse')))} ${S('ay', ld(pt(1, 'normalImpulse')))}
${relativeVelocity(0, 'dvx', 'dvy')}
${relativeVelocity(1, 'dv2x', 'dv2y')}
${S('vn1', add(mul(L('dvx'), L('nx')), mul(L('dvy'), L('ny'))))}
${S('vn2', add(mul(L('dv2x'), L('nx')), mul(L('dv2y'), L('ny'))))}
${S('bx', sub(L('vn1'), ld(pt(0, 'bias'))))} ${S('by', sub(L('vn2'), ld(pt(1, 'bias'))))}
${S('bx', sub(L('bx'), add(mul(ld(K), L('ax')), mul(ld(K + 16), L('ay')))))}
${S('by', sub(L('by'), add(mul(ld(K + 8), L('ax')), mul(ld(K + 24), L('ay')))))}
(block $done
  ${S('xx', neg(add(mul(ld(NM), L('bx')), mul(ld(NM + 16), L('by')))))}
  ${S('xy', neg(add(mul(ld(NM + 8), L('bx')), mul(ld(NM + 24), L('by')))))}
  (if ${ge0('xx', 'xy')} (then ${blockApply} (br $done)))
  ${S('xx', mul(neg(ld(pt(0, 'normalMass'))), L('bx')))} ${S('xy', num(0))}
  ${S('vn1', num(0))} ${S('vn2', add(mul(ld(K + 8), L('xx')), L('by')))}
  (if ${ge0('xx', 'vn2')} (then ${blockApply} (br $done)))
  ${S('xx', num(0))} ${S('xy', mul(neg(ld(pt(1, 'normalMass'))), L('by')))}
  ${S('vn1', add(mul(ld(K + 16), L('xy')), L('bx')))} ${S('vn2', num(0))}
  (if ${ge0('xy', 'vn1')} (then ${blockApply} (br $done)))
  ${S('xx', num(0))} ${S('xy', num(0))} ${S('vn1', L('bx'))} ${S('vn2', L('by'))}
  (if ${ge0('vn1', 'vn2')} (then ${blockApply} (br $done)))
)`;

const F64_LOCALS =
  'mA iA mB iB nx ny tx ty fr ts vAx vAy wA vBx vBy wB dvx dvy dv2x dv2y vt vn vn1 vn2 lambda maxF old newI Px Py ax ay bx by xx xy dx dy P1x P1y P2x P2y'.split(
    ' ',
  );

export function kernelWat(): string {
  return `(module
 (memory (export "memory") 1)
 ;; iterate(contacts, iterations, blockSolve, info): the velocity iterations over an island.
 (func (export "iterate") (param $nc i32) (param $iters i32) (param $blockSolve i32) (param $info i32)
  (local $it i32) (local $k i32) (local $o i32) (local $a i32) (local $b i32) (local $pc i32) (local $inf i32)
  ${F64_LOCALS.map((n) => `(local $${n} f64)`).join(' ')}
  (block $itEnd (loop $itLoop
   (br_if $itEnd (i32.ge_s (local.get $it) (local.get $iters)))
   (local.set $k (i32.const 0))
   (block $kEnd (loop $kLoop
    (br_if $kEnd (i32.ge_s (local.get $k) (local.get $nc)))
    (local.set $inf (i32.add (local.get $info) (i32.mul (local.get $k) (i32.const 12))))
    (local.set $pc (i32.load (local.get $inf)))
    (if (i32.ge_s (local.get $pc) (i32.const 0)) (then
     (local.set $a (i32.load offset=4 (local.get $inf)))
     (local.set $b (i32.load offset=8 (local.get $inf)))
     (local.set $o (i32.mul (local.get $k) (i32.const ${RECORD_BYTES})))
     ${S('mA', ld(0))} ${S('iA', ld(8))} ${S('mB', ld(16))} ${S('iB', ld(24))}
     ${S('nx', ld(32))} ${S('ny', ld(40))} ${S('fr', ld(48))} ${S('ts', ld(56))}
     ${S('vAx', '(f64.load (local.get $a))')} ${S('vAy', '(f64.load offset=8 (local.get $a))')} ${S('wA', '(f64.load offset=16 (local.get $a))')}
     ${S('vBx', '(f64.load (local.get $b))')} ${S('vBy', '(f64.load offset=8 (local.get $b))')} ${S('wB', '(f64.load offset=16 (local.get $b))')}
     ;; crossVec2Num(tangent, normal, 1) = (1 * n.y, -1 * n.x)
     ${S('tx', mul(num(1), L('ny')))} ${S('ty', mul(num(-1), L('nx')))}
     (if (i32.gt_s (local.get $pc) (i32.const 0)) (then ${friction(0)}))
     (if (i32.gt_s (local.get $pc) (i32.const 1)) (then ${friction(1)}))
     (if (i32.or (i32.eq (local.get $pc) (i32.const 1)) (i32.eqz (local.get $blockSolve)))
      (then
       (if (i32.gt_s (local.get $pc) (i32.const 0)) (then ${normalOnePoint(0)}))
       (if (i32.gt_s (local.get $pc) (i32.const 1)) (then ${normalOnePoint(1)})))
      (else ${block}))
     (f64.store (local.get $a) (local.get $vAx)) (f64.store offset=8 (local.get $a) (local.get $vAy)) (f64.store offset=16 (local.get $a) (local.get $wA))
     (f64.store (local.get $b) (local.get $vBx)) (f64.store offset=8 (local.get $b) (local.get $vBy)) (f64.store offset=16 (local.get $b) (local.get $wB))
    ))
    (local.set $k (i32.add (local.get $k) (i32.const 1)))
    (br $kLoop)))
   (local.set $it (i32.add (local.get $it) (i32.const 1)))
   (br $itLoop)))
 )
)`;
}

/** The kernel's bytes, compiled from `kernelWat()` with wabt (a devDependency). */
export async function kernelBytes(): Promise<Uint8Array> {
  const wabt = await (await import('wabt')).default();
  const module = wabt.parseWat('solver-kernel.wat', kernelWat());
  module.validate();
  const { buffer } = module.toBinary({ log: false, write_debug_names: false });
  module.destroy();
  return new Uint8Array(buffer);
}

export function kernelModuleSource(bytes: Uint8Array): string {
  const base64 = Buffer.from(bytes).toString('base64');
  const lines = base64.match(/.{1,100}/g) ?? [];
  return `// Generated by scripts/solver-wasm.ts from its WebAssembly text: do not edit (run \`npx tsx scripts/solver-wasm.ts\`).
// The velocity iterations of planck 1.4.2's contact solver over an island (bridge/headless/solver.ts).
export const SOLVER_KERNEL_WASM =
${lines.map((l) => `  '${l}'`).join(' +\n')};
`;
}

if (isMainModule(import.meta.url)) {
  const out = fileURLToPath(new URL('../bridge/headless/solver-kernel.ts', import.meta.url));
  writeFileSync(out, kernelModuleSource(await kernelBytes()));
  process.stdout.write(`wrote ${out}\n`);
}
