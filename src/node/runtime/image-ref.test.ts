import { test } from 'node:test';
import assert from 'node:assert/strict';
import { familiarName, parseImageReference } from './image-ref.js';

const cases: Array<{ in: string; normalized: string; familiar: string }> = [
  { in: 'nginx', normalized: 'docker.io/library/nginx:latest', familiar: 'nginx' },
  { in: 'nginx:1.27', normalized: 'docker.io/library/nginx:1.27', familiar: 'nginx' },
  { in: 'docker.io/nginx', normalized: 'docker.io/library/nginx:latest', familiar: 'nginx' },
  { in: 'index.docker.io/library/nginx', normalized: 'docker.io/library/nginx:latest', familiar: 'nginx' },
  { in: 'kiamol/ch03-numbers-web', normalized: 'docker.io/kiamol/ch03-numbers-web:latest', familiar: 'kiamol/ch03-numbers-web' },
  { in: 'mcr.microsoft.com/windows/servercore:ltsc2019', normalized: 'mcr.microsoft.com/windows/servercore:ltsc2019', familiar: 'mcr.microsoft.com/windows/servercore' },
  { in: 'localhost:5000/app', normalized: 'localhost:5000/app:latest', familiar: 'localhost:5000/app' },
  { in: 'localhost/app:v1', normalized: 'localhost/app:v1', familiar: 'localhost/app' },
  {
    in: 'busybox@sha256:3fbc632167424a6d997e74f52b878d7cc478225cffac6bc977eedfe51c7f4e79',
    normalized: 'docker.io/library/busybox@sha256:3fbc632167424a6d997e74f52b878d7cc478225cffac6bc977eedfe51c7f4e79',
    familiar: 'busybox',
  },
];
for (const tc of cases) {
  void test(`normalizes ${tc.in}`, () => {
    const r = parseImageReference(tc.in);
    assert.equal(r.normalized, tc.normalized);
    assert.equal(familiarName(r), tc.familiar);
  });
}

void test('a digest reference has no default tag', () => {
  const r = parseImageReference('busybox@sha256:3fbc632167424a6d997e74f52b878d7cc478225cffac6bc977eedfe51c7f4e79');
  assert.equal(r.tag, undefined);
});

void test('invalid references are refused with distribution\'s wording', () => {
  assert.throws(() => parseImageReference('Nginx'), /repository name must be lowercase/);
  assert.throws(() => parseImageReference('nginx:'), /invalid reference format/);
  assert.throws(() => parseImageReference(''), /invalid reference format/);
  assert.throws(() => parseImageReference('nginx@sha256:xyz'), /invalid reference format/);
});
