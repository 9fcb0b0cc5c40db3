"""Reading QEMU screenshots of the framebuffer display (PNG, 8-bit RGB) and measuring what a
person would see: which rows are lit, where the ticker's band is, how far it moved between
two shots. Shared by scripts/kiosk-vm-check and scripts/kiosk-system-test."""
import zlib


def read_png(path):
    """(width, height, rows): each row a list of per-pixel brightness (max of R, G, B)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
            assert body[8] == 8 and body[9] == 2, "8-bit RGB expected"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * 3 + 1
    rows = []
    for y in range(height):
        assert raw[y * stride] == 0, "only filter type 0 is expected"
        line = raw[y * stride + 1:(y + 1) * stride]
        rows.append([max(line[x * 3], line[x * 3 + 1], line[x * 3 + 2]) for x in range(width)])
    return width, height, rows


def lit_rows(rows, first=0, last=None):
    """Rows (from first to last) with more than 4 lit pixels: clearly above the black screen,
    as text dimmed for the night is too (5:1 on black is about 120 of 255)."""
    last = len(rows) if last is None else last
    return [y for y in range(first, last) if sum(1 for v in rows[y] if v > 60) > 4]


def band_rows(rows):
    """Lit rows of the ticker's band: from a sixth of the height above the middle to a ninth
    below it (the orientation line starts further down)."""
    height = len(rows)
    middle = height // 2
    return [y for y in lit_rows(rows) if middle - height // 6 < y < middle + height // 9]


def line_rows(rows):
    """Lit rows of the orientation line, below the band: from a ninth of the height below
    the middle to a quarter."""
    height = len(rows)
    middle = height // 2
    return [y for y in lit_rows(rows) if middle + height // 9 <= y <= middle + height // 4]


def stray_rows(rows):
    """Lit rows where nothing of marquee's may be: below the orientation line, and the very
    top (console text, a cursor, kernel messages)."""
    height = len(rows)
    middle = height // 2
    return [y for y in lit_rows(rows) if y > middle + height // 4 or y < 4]


def shift(first, second, band):
    """(best, aligned, unaligned): the leftward shift in pixels that best lines the band of
    `second` up with `first`, and the mean difference with and without it."""
    width = len(first[0])

    def difference(offset):
        total = count = 0
        for y in band[::3]:
            a, b = first[y], second[y]
            for x in range(0, width - offset, 2):
                total += abs(a[x + offset] - b[x])
                count += 1
        return total / max(1, count)

    best = min(range(0, width // 2), key=difference)
    return best, difference(best), difference(0)
