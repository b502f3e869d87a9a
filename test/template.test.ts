import t from 'tap';
import { parseTemplate, placeholdersOf, substitute } from '../shared/metrics/template.ts';

const vars: Record<string, string> = { revision: 'v2', 'app-name': 'shop', elapsedTime: '600' };
const lookup = (name: string) => vars[name];
const unknown = (name: string) => `unknown placeholder $${name}`;

t.test('templates: $name and ${name} are replaced', async (t) => {
  t.same(substitute("rate(x{rev='$revision'}[${elapsedTime}s])", 'q', lookup, unknown), { ok: true, value: "rate(x{rev='v2'}[600s])" });
  t.same(substitute('${app-name}/$revision', 'q', lookup, unknown), { ok: true, value: 'shop/v2' });
});

t.test('templates: $name ends at the first character that cannot be in a name', async (t) => {
  t.same(substitute('$revision-canary.$revision_x', 'q', (n) => ({ revision: 'v2', revision_x: 'X' })[n], unknown), {
    ok: true,
    value: 'v2-canary.X',
  });
});

t.test('templates: $$ is a literal $, and a $ before a non-name character stays', async (t) => {
  t.same(substitute('cost $$5, regex "foo$", $1 and $', 'q', lookup, unknown), { ok: true, value: 'cost $5, regex "foo$", $1 and $' });
  t.same(substitute('$$revision', 'q', lookup, unknown), { ok: true, value: '$revision' });
});

t.test('templates: an unknown placeholder fails the whole substitution and is named', async (t) => {
  t.same(substitute('a $revision $missing', 'params.query', lookup, unknown), {
    ok: false,
    reason: 'params.query: unknown placeholder $missing',
  });
});

t.test('templates: malformed placeholders are reasons, not text', async (t) => {
  t.same(parseTemplate('x ${revision', 'body'), { ok: false, reason: 'body: "${" without a closing "}"' });
  t.same(parseTemplate('x ${}', 'body'), { ok: false, reason: 'body: empty placeholder "${}"' });
});

t.test('templates: placeholders are listed in order', async (t) => {
  const parsed = parseTemplate('$a ${b-c} $$d $e', 'x');
  t.ok(parsed.ok);
  if (parsed.ok) t.same(placeholdersOf(parsed.value), ['a', 'b-c', 'e']);
});
