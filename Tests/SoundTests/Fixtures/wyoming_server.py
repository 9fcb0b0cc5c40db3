"""A Wyoming text-to-speech server for the tests, built on the protocol's own library
(`wyoming` from PyPI) and speaking with Piper's Python voice: what Home Assistant's Piper
add-on answers. It prints its port when it listens, then serves until killed.

usage: wyoming_server.py MODEL MODE
MODE: speak (the words in audio-start, audio-chunks of a second, audio-stop),
      close (audio-start and one chunk, then the connection closed mid-answer),
      silent (the request read, never answered), garbage (a line that is no event)."""

import asyncio
import sys

from piper import PiperVoice
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.server import AsyncEventHandler, AsyncTcpServer
from wyoming.tts import Synthesize

MODEL, MODE = sys.argv[1], sys.argv[2]
VOICE = PiperVoice.load(MODEL)


class Handler(AsyncEventHandler):
    async def handle_event(self, event: Event) -> bool:
        if not Synthesize.is_type(event.type):
            return True
        if MODE == "silent":
            await asyncio.sleep(3600)
        if MODE == "garbage":
            self.writer.write(b"this is not an event\n")
            await self.writer.drain()
            return False
        text = Synthesize.from_event(event).text
        audio = b"".join(chunk.audio_int16_bytes for chunk in VOICE.synthesize(text))
        rate = VOICE.config.sample_rate
        await self.write_event(AudioStart(rate=rate, width=2, channels=1).event())
        second = rate * 2
        for start in range(0, len(audio), second):
            await self.write_event(AudioChunk(rate=rate, width=2, channels=1, audio=audio[start:start + second]).event())
            if MODE == "close":
                return False
        await self.write_event(AudioStop().event())
        return True


async def main() -> None:
    # Port 0: the kernel's choice, printed once the server listens on it.
    server = AsyncTcpServer("127.0.0.1", 0)
    await server.start(lambda reader, writer: Handler(reader, writer))
    print(server._server.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()


asyncio.run(main())
