/**
 * The three outputs of `kubemix check`: a grouped table for people (ANSI colour only when asked), the JSON
 * report (`CheckReport`, stable), and JUnit XML for CI systems (one testcase per workload and per object
 * with hazards, one failure per hazard).
 */
import type { CheckReport, Hazard, ObjectRef, WorkloadReport } from './types.js';

export type OutputFormat = 'table' | 'json' | 'junit';
export const outputFormats: readonly OutputFormat[] = ['table', 'json', 'junit'];

export interface RenderOptions {
  /** ANSI colours (the CLI passes: stdout is a TTY and NO_COLOR is unset). */
  color?: boolean;
}

export function renderReport(report: CheckReport, format: OutputFormat, opts: RenderOptions = {}): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'junit':
      return renderJUnit(report);
    case 'table':
      return renderTable(report, opts);
  }
}

function sourceOf(r: ObjectRef): string {
  return r.source.file === '' ? '' : `${r.source.file}#${r.source.document}`;
}

function objectName(r: ObjectRef): string {
  return r.namespace !== '' ? `${r.namespace}/${r.name}` : r.name;
}

function pad(s: string, n: number): string {
  return s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length);
}

function indent(text: string, prefix: string): string {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}

/** The readable report. */
export function renderTable(report: CheckReport, opts: RenderOptions = {}): string {
  const paint = (code: string, s: string): string => (opts.color === true ? `\u001b[${code}m${s}\u001b[0m` : s);
  const red = (s: string): string => paint('31', s);
  const yellow = (s: string): string => paint('33', s);
  const green = (s: string): string => paint('32', s);
  const bold = (s: string): string => paint('1', s);
  const lines: string[] = [];
  const c = report.cluster;
  const total = c.nodeGroups.reduce((s, g) => s + g.nodes.length, 0);
  const clusterName = c.source === 'default' ? 'default topology' : c.source === 'config' ? `cluster "${c.name}"` : `live cluster "${c.name}"`;
  lines.push(`Cluster: ${clusterName}, ${total} nodes: ${c.nodeGroups.map((g) => `${g.group} (${g.nodes.length})`).join(', ')}`);
  const hazardLines = (hazards: readonly Hazard[]): void => {
    for (const h of hazards) {
      const tag = h.severity === 'error' ? red('ERROR') : yellow('WARNING');
      lines.push(`  ${tag} ${h.type}: ${h.message}`);
      if (h.fix !== undefined) {
        lines.push('    fix:');
        lines.push(indent(h.fix, '      '));
      }
    }
  };
  for (const w of report.workloads) {
    lines.push('', ...workloadLines(w, { bold, red, green, yellow }));
    hazardLines(w.hazards);
  }
  for (const o of report.objects) {
    lines.push('', `${bold(`${o.kind} ${objectName(o)}`)} (${o.apiVersion}${sourceOf(o) !== '' ? `, ${sourceOf(o)}` : ''})  ${red('FAIL')}`);
    hazardLines(o.hazards);
  }
  const s = report.summary;
  lines.push(
    '',
    `${s.ok ? green('OK') : red('FAIL')}: ${s.workloads} workload(s), ${s.desiredPods} pod(s): ${s.runningPods} run, ${s.placedPods - s.runningPods} placed but failing, ${s.pendingPods} pending; ${s.errors} error(s), ${s.warnings} warning(s)`,
  );
  return `${lines.join('\n')}\n`;
}

function workloadLines(w: WorkloadReport, p: { bold: (s: string) => string; red: (s: string) => string; green: (s: string) => string; yellow: (s: string) => string }): string[] {
  const lines: string[] = [];
  const status = w.ok ? (w.hazards.length > 0 ? p.yellow('WARN') : p.green('OK')) : p.red('FAIL');
  lines.push(`${p.bold(`${w.kind} ${objectName(w)}`)} (${w.apiVersion}${sourceOf(w) !== '' ? `, ${sourceOf(w)}` : ''})  ${status}`);
  if (w.groups.length === 0 && w.desiredPods === 0) return lines;
  const placed = w.placements.reduce((s, x) => s + x.pods, 0);
  const pending = w.pending.reduce((s, x) => s + x.pods, 0);
  lines.push(`  pods: ${w.desiredPods} desired, ${placed} placed, ${pending} pending`);
  if (w.groups.length > 0) {
    const width = Math.max(10, ...w.groups.map((g) => g.group.length)) + 2;
    lines.push(`  ${pad('NODE GROUP', width)}${pad('FEASIBLE', 10)}ON THE NODE / WHY NOT`);
    for (const g of w.groups) {
      const why = g.feasibleNodes > 0 ? `${g.outcome ?? ''}${g.message !== undefined ? `: ${g.message}` : ''}` : '';
      const rejected = g.reasons.map((r) => `${r.nodes} ${r.reason}`).join(', ');
      const text = [why, rejected].filter((x) => x !== '').join('; ');
      lines.push(`  ${pad(g.group, width)}${pad(`${g.feasibleNodes}/${g.nodes}`, 10)}${text}`);
    }
  }
  for (const pl of w.placements) {
    const nodes = Object.entries(pl.nodes)
      .map(([n, k]) => (k > 1 ? `${n} x${k}` : n))
      .join(', ');
    const outcome = pl.outcome === 'Running' ? p.green('Running') : p.red(pl.outcome);
    lines.push(`  placed: ${pl.pods} on ${pl.group} (${nodes}): ${outcome}${pl.message !== undefined ? `: ${pl.message}` : ''}`);
  }
  for (const pe of w.pending) lines.push(`  ${p.red('pending')}: ${pe.pods}: ${pe.message}`);
  return lines;
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JUnit XML: testsuite `kubemix check`, testcase per workload (classname = kind), failure per hazard. */
export function renderJUnit(report: CheckReport): string {
  const cases: string[] = [];
  let failures = 0;
  const testcase = (r: ObjectRef, hazards: readonly Hazard[], extra: string[]): void => {
    const attrs = `classname="${xml(r.kind)}" name="${xml(objectName(r))}"${r.source.file !== '' ? ` file="${xml(r.source.file)}"` : ''}`;
    const body: string[] = [];
    for (const h of hazards) {
      failures++;
      body.push(`      <failure type="${xml(h.type)}" message="${xml(`${h.severity}: ${h.message}`)}">${xml(h.fix !== undefined ? `${h.message}\n\nfix:\n${h.fix}` : h.message)}</failure>`);
    }
    if (extra.length > 0) body.push(`      <system-out>${xml(extra.join('\n'))}</system-out>`);
    cases.push(body.length === 0 ? `    <testcase ${attrs}/>` : `    <testcase ${attrs}>\n${body.join('\n')}\n    </testcase>`);
  };
  for (const w of report.workloads) {
    const out = [
      ...w.placements.map((p) => `${p.pods} pod(s) on ${p.group} (${Object.keys(p.nodes).join(', ')}): ${p.outcome}${p.message !== undefined ? `: ${p.message}` : ''}`),
      ...w.pending.map((p) => `${p.pods} pod(s) Pending: ${p.message}`),
    ];
    testcase(w, w.hazards, out);
  }
  for (const o of report.objects) testcase(o, o.hazards, []);
  const tests = report.workloads.length + report.objects.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kubemix check" tests="${tests}" failures="${failures}" errors="0">`,
    `  <testsuite name="kubemix check" tests="${tests}" failures="${failures}" errors="0" skipped="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
