import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareQuantities, dns1123Label, dns1123Subdomain, envVarName, labelValue, parseQuantity, portName, qualifiedName } from '../../../src/kube/syntax.js';

describe('name syntaxes', () => {
  const ok = (f: (v: string) => string | undefined, v: string): void => assert.equal(f(v), undefined, `${f.name}(${v})`);
  const bad = (f: (v: string) => string | undefined, v: string): void => assert.notEqual(f(v), undefined, `${f.name}(${v})`);
  it('DNS-1123 labels', () => {
    for (const v of ['a', 'web-1', '1abc', 'a'.repeat(63)]) ok(dns1123Label, v);
    for (const v of ['', 'A', 'a.b', '-a', 'a-', 'a_b', 'a'.repeat(64)]) bad(dns1123Label, v);
  });
  it('DNS-1123 subdomains', () => {
    for (const v of ['a', 'a.b-c.d', 'a'.repeat(253)]) ok(dns1123Subdomain, v);
    for (const v of ['', 'a..b', '.a', 'a.', 'A.b', 'a'.repeat(254)]) bad(dns1123Subdomain, v);
  });
  it('qualified names and label values', () => {
    for (const v of ['app', 'app.kubernetes.io/name', 'Ab_c.d-e', 'x/y']) ok(qualifiedName, v);
    for (const v of ['', '/a', 'a/', 'a/b/c', '-a', 'UPPER.example.com/a', 'a'.repeat(64)]) bad(qualifiedName, v);
    for (const v of ['', 'v1.2_x-y', 'A']) ok(labelValue, v);
    for (const v of ['-a', 'a b', 'a'.repeat(64)]) bad(labelValue, v);
  });
  it('IANA service names (port names)', () => {
    for (const v of ['http', 'h2c', 'web-8080', 'a'.repeat(15)]) ok(portName, v);
    for (const v of ['', '80', 'HTTP', 'a--b', '-a', 'a-', 'a'.repeat(16), 'a_b']) bad(portName, v);
  });
  it('environment variable names (printable ASCII, no "=")', () => {
    for (const v of ['PATH', 'my.var-1', 'a b', '1X']) ok(envVarName, v);
    for (const v of ['', 'A=B', 'é', 'a\tb']) bad(envVarName, v);
  });
});

describe('quantities', () => {
  const valid: Array<[unknown, string]> = [
    ['128Mi', '128Mi'],
    ['500m', '0.5'],
    ['0.5', '500m'],
    ['1e3', '1k'],
    ['1E-3', '1m'],
    ['1Gi', '1073741824'],
    [0.5, '500m'],
    [1e9, '1G'],
    ['+1', '1'],
    ['.5', '500m'],
    ['1.', '1'],
    ['100u', '100000n'],
  ];
  for (const [a, b] of valid) {
    it(`${String(a)} = ${b}`, () => {
      const qa = parseQuantity(a);
      const qb = parseQuantity(b);
      assert.ok(qa && qb);
      assert.equal(compareQuantities(qa, qb), 0);
    });
  }
  for (const v of ['', '1x', '1Y', 'Mi', '1.5e1.5', '1 Mi', '1mi', 'abc', true, null, [1], Infinity]) {
    it(`${JSON.stringify(v)} is not a quantity`, () => assert.equal(parseQuantity(v), undefined));
  }
  it('orders exactly', () => {
    const q = (v: string) => parseQuantity(v)!;
    assert.equal(compareQuantities(q('1Gi'), q('1G')) > 0, true);
    assert.equal(compareQuantities(q('999m'), q('1')) < 0, true);
    assert.equal(compareQuantities(q('-1'), q('0')) < 0, true);
    assert.equal(parseQuantity('-1')!.negative, true);
    assert.equal(parseQuantity('-0')!.negative, false);
  });
});
