// A JSON array of row objects (what batch --format json writes), one element at a time: the text is scanned
// for the array's top-level commas (outside strings, at depth 1) and each element parsed alone, so a file of a
// million rows is never held whole, nor a parser's tree of it.
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../api/errors.js';

/** The elements of the JSON array in `source`, in chunks of up to `size`. */
export async function* jsonArrayElements(source: AsyncIterable<Buffer | string>, fileName: string, size = 256): AsyncGenerator<unknown[]> {
  const decoder = new StringDecoder('utf8');
  let depth = 0;
  let inString = false;
  let escaped = false;
  let started = false;
  let ended = false;
  let line = 1;
  let element = '';
  let out: unknown[] = [];
  const fail = (why: string): never => {
    throw new InputError(`${fileName}: ${why} (line ${line}); summarize reads the JSON array batch --format json writes`, fileName, line);
  };
  const emit = (): void => {
    const text = element.trim();
    element = '';
    if (text === '') return;
    try {
      out.push(JSON.parse(text));
    } catch {
      fail('an element of the array is not JSON');
    }
  };
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true;
        else if (c === 34) inString = false;
        continue;
      }
      if (!started) {
        if (c === 0xfeff || c === 32 || c === 9 || c === 10 || c === 13) continue;
        if (c !== 91) fail('not a JSON array');
        started = true;
        depth = 1;
        from = i + 1;
        continue;
      }
      if (ended) {
        if (c !== 32 && c !== 9 && c !== 10 && c !== 13) fail('text after the end of the array');
        continue;
      }
      if (c === 34) inString = true;
      else if (c === 91 || c === 123) depth++;
      else if (c === 93 || c === 125) {
        depth--;
        if (depth === 0) {
          element += text.slice(from, i);
          emit();
          ended = true;
          from = i + 1;
        }
      } else if (c === 44 && depth === 1) {
        element += text.slice(from, i);
        emit();
        from = i + 1;
      }
    }
    if (started && !ended) element += text.slice(from);
    if (out.length >= size) {
      yield out;
      out = [];
    }
  }
  if (!ended) fail(started ? 'the array is not closed: the file is cut short' : 'empty input, not a JSON array');
  if (out.length > 0) yield out;
}
