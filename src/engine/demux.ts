// The Engine API's framing of a non-TTY container's output (logs, attach, exec): each frame is an 8-byte
// header — stream type (0 stdin, 1 stdout, 2 stderr), three zero bytes, big-endian payload length — then the
// payload. A network chunk can end anywhere, even inside a header, so frames are reassembled across chunks:
// splitting per chunk would send the tail of a stderr frame to stdout, or print header bytes as text.
import type { OutputStream } from './ports/streams.js';

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
