import zlib from "node:zlib";

/**
 * A minimal zip writer for hostile test files (a maintained zip library cannot write sizes that lie, nor stream a
 * gigabyte through Deflate without holding it): each entry is Deflate-compressed as a stream from `chunk` repeated
 * `times` times after `head` and before `tail`, so a 1 GB entry costs the test ~1 MB of output. `declaredSize`
 * overrides the uncompressed size the headers claim (a lying zip bomb).
 */
export type TZipEntry = {
  name: string;
  head?: string;
  chunk?: string;
  times?: number;
  tail?: string;
  declaredSize?: number;
};

export async function writeZip(entries: readonly TZipEntry[]): Promise<Uint8Array> {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const { data, crc, size } = await deflateEntry(entry);
    const name = Buffer.from(entry.name, "utf8");
    const claimed = entry.declaredSize ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // Deflate
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(claimed, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(8, 10);
    header.writeUInt16LE(0, 12);
    header.writeUInt16LE(0x21, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(claimed, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    central.push(header, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

async function deflateEntry(entry: TZipEntry): Promise<{ data: Buffer; crc: number; size: number }> {
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on("data", (b: Buffer) => out.push(b));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on("end", resolve);
    deflate.on("error", reject);
  });
  let crc = 0;
  let size = 0;
  const write = async (text: string | Buffer) => {
    const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    crc = zlib.crc32(bytes, crc);
    size += bytes.length;
    if (!deflate.write(bytes)) await new Promise((resolve) => deflate.once("drain", resolve));
  };
  if (entry.head) await write(entry.head);
  if (entry.chunk) {
    const chunk = Buffer.from(entry.chunk, "utf8");
    for (let i = 0; i < (entry.times ?? 1); i++) await write(chunk);
  }
  if (entry.tail) await write(entry.tail);
  deflate.end();
  await done;
  return { data: Buffer.concat(out), crc: crc >>> 0, size };
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const DOC_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`;
const DOC_TAIL = "</w:body></w:document>";

/** A .docx whose body is `paragraph` (XML) repeated `times` times; `declaredSize` makes its body's size lie. */
export function repeatingDocx(paragraph: string, times: number, declaredSize?: number): Promise<Uint8Array> {
  return writeZip([
    { name: "[Content_Types].xml", head: CONTENT_TYPES },
    { name: "_rels/.rels", head: RELS },
    {
      name: "word/document.xml",
      head: DOC_HEAD,
      chunk: paragraph.repeat(1000),
      times: Math.ceil(times / 1000),
      tail: DOC_TAIL,
      ...(declaredSize === undefined ? {} : { declaredSize }),
    },
  ]);
}
