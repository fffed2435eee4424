// The Engine API's framing of a non-TTY container's output (logs, attach, exec): each frame is an 8-byte
// header — stream type (0 stdin, 1 stdout, 2 stderr), three zero bytes, big-endian payload length — then the
// payload. A network chunk can end anywhere, even inside a header, so frames are reassembled across chunks:
// splitting per chunk would send the tail of a stderr frame to stdout, or print header bytes as text.
import { StringDecoder } from 'node:string_decoder';
import type { OutputStream } from './engine.js';

const headerSize = 8;

export class FrameDemuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (stream: OutputStream, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let i = 0;
    while (this.pending.length - i >= headerSize) {
      const type = this.pending[i]!;
      const size = this.pending.readUInt32BE(i + 4);
      if (this.pending.length - i - headerSize < size) break;
      const payload = this.pending.subarray(i + headerSize, i + headerSize + size);
      // Type 0 (stdin echoed back) is written to stdout, as the docker CLI does.
      if (size > 0) this.onFrame(type === 2 ? 'stderr' : 'stdout', payload);
      i += headerSize + size;
    }
    this.pending = i === 0 ? this.pending : Buffer.from(this.pending.subarray(i));
  }

  /** Bytes of an incomplete frame left when the stream ended (a truncated stream); 0 normally. */
  get leftover(): number {
    return this.pending.length;
  }
}

/**
 * Splits a stream into whole lines for `--prefix`: a line is written only once its newline arrives, so
 * prefixes from two containers never land in the middle of each other's lines.
 */
export class LineSplitter {
  private pending = '';
  // A chunk can end inside a multi-byte UTF-8 character; the decoder holds its first bytes back.
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      this.onLine(this.pending.slice(0, nl + 1));
      this.pending = this.pending.slice(nl + 1);
    }
  }

  /** The last line when the stream ends without a newline. */
  flush(): void {
    this.pending += this.decoder.end();
    if (this.pending) this.onLine(`${this.pending}\n`);
    this.pending = '';
  }
}
