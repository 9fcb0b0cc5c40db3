import CALSA

#if canImport(Glibc)
    import Glibc
#endif

/// An ALSA playback device (`default`, `hw:1,0`, `plughw:CARD=Intel`, or a PCM of an
/// asoundrc), opened for each reminder and closed after it, so a device plugged in later is
/// found and nothing is held between reminders. A kiosk's service has no sound server: this is
/// ALSA itself. Playing blocks until the device has played all: call it on a thread of its own.
package struct SoundDevice: Sendable {
    package let name: String

    /// Why a clip could not be played, in words for a carer's journal.
    package struct Failure: Error, CustomStringConvertible, Equatable {
        package var description: String
    }

    package init(name: String) {
        self.name = name
        mq_alsa_keep_quiet()
    }

    /// Plays the clips one after another without a gap; `whenPlaying` is told as the first
    /// samples reach the device (its buffer filled, so it starts). A later clip is asked for
    /// (`next`) only once the earlier ones are written, so it can be made meanwhile.
    package func play(first: SoundClip, then next: () throws -> SoundClip?, whenPlaying: () -> Void = {}) throws {
        var pcm: OpaquePointer?
        // Opened without blocking (a busy device says so at once), then written blocking.
        var result = snd_pcm_open(&pcm, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard result >= 0, let pcm else { throw failure("cannot open the sound device", result) }
        defer { snd_pcm_close(pcm) }
        snd_pcm_nonblock(pcm, 0)
        result = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(first.sampleRate),
                                    1, 300_000)
        guard result >= 0 else { throw failure("the sound device refuses 16-bit mono at \(first.sampleRate) Hz", result) }
        // The device starts playing once its buffer is full: the first samples are heard then,
        // not when the whole first clip is written (a paced card takes most of its length).
        var (bufferFrames, periodFrames): (snd_pcm_uframes_t, snd_pcm_uframes_t) = (0, 0)
        let starts = snd_pcm_get_params(pcm, &bufferFrames, &periodFrames) >= 0 ? Int(bufferFrames) : 0
        let split = min(first.samples.count, starts)
        try write(SoundClip(samples: Array(first.samples[..<split]), sampleRate: first.sampleRate), to: pcm)
        whenPlaying()
        try write(SoundClip(samples: Array(first.samples[split...]), sampleRate: first.sampleRate), to: pcm)
        while let clip = try next() {
            guard clip.sampleRate == first.sampleRate else {
                throw Failure(description: "a sound of \(clip.sampleRate) Hz follows one of \(first.sampleRate) Hz")
            }
            try write(clip, to: pcm)
        }
        snd_pcm_drain(pcm)
    }

    /// Why what is played here would not be heard: the card's `Master` or `PCM` control is
    /// switched off or at its lowest. ALSA leaves some cards so until `alsactl init` (which
    /// alsa-utils runs at boot) sets them up. nil: it would be heard, or the device has no card
    /// of its own (a file, a network PCM), or it cannot be opened now.
    package func mixerSilence() -> String? {
        var pcm: OpaquePointer?
        guard snd_pcm_open(&pcm, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) >= 0, let pcm else { return nil }
        var info: OpaquePointer?
        guard snd_pcm_info_malloc(&info) >= 0, let info else {
            snd_pcm_close(pcm)
            return nil
        }
        defer { snd_pcm_info_free(info) }
        var card = snd_pcm_info(pcm, info) >= 0 ? snd_pcm_info_get_card(info) : -1
        snd_pcm_close(pcm)
        // A mixing or converting device (dmix, which many cards' `default` is) has no card of
        // its own in its information: the one its name gives, or ALSA's first.
        if card < 0 { card = Self.card(in: name) }
        guard card >= 0 else { return nil }
        var mixer: OpaquePointer?
        guard snd_mixer_open(&mixer, 0) >= 0, let mixer else { return nil }
        defer { snd_mixer_close(mixer) }
        guard snd_mixer_attach(mixer, "hw:\(card)") >= 0, snd_mixer_selem_register(mixer, nil, nil) >= 0,
              snd_mixer_load(mixer) >= 0
        else { return nil }
        var silenced: [String] = []
        var element = snd_mixer_first_elem(mixer)
        while let current = element {
            defer { element = snd_mixer_elem_next(current) }
            let control = String(cString: snd_mixer_selem_get_name(current))
            guard control == "Master" || control == "PCM", snd_mixer_selem_is_active(current) != 0 else { continue }
            var on: Int32 = 1
            if snd_mixer_selem_has_playback_switch(current) != 0,
               snd_mixer_selem_get_playback_switch(current, SND_MIXER_SCHN_FRONT_LEFT, &on) >= 0, on == 0 {
                silenced.append("\(control) is switched off")
                continue
            }
            var (lowest, highest, volume) = (0, 0, 0)
            if snd_mixer_selem_has_playback_volume(current) != 0,
               snd_mixer_selem_get_playback_volume_range(current, &lowest, &highest) >= 0, highest > lowest,
               snd_mixer_selem_get_playback_volume(current, SND_MIXER_SCHN_FRONT_LEFT, &volume) >= 0, volume <= lowest {
                silenced.append("\(control) is at its lowest")
            }
        }
        guard !silenced.isEmpty else { return nil }
        return "the sound card of \"\(name)\" plays nothing that is heard: in its mixer \(silenced.joined(separator: " and ")) "
            + "(set it up with `alsactl init`, or `amixer -c \(card) sset Master 80% unmute`)"
    }

    /// The card an ALSA device name names (`hw:1`, `plughw:CARD=Intel,DEV=0`, `dmix:Intel`),
    /// card 0 for `default`, `sysdefault` and `dmix` alone; -1 for any other (a file, a
    /// network device).
    package static func card(in name: String) -> Int32 {
        let parts = name.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return ["default", "sysdefault", "dmix"].contains(name) ? 0 : -1 }
        let settings = parts[1].split(separator: ",")
        let given = settings.first { $0.hasPrefix("CARD=") }.map { $0.dropFirst(5) } ?? settings.first
        guard let given, !given.contains("=") || given.hasPrefix("CARD=") else { return -1 }
        return snd_card_get_index(String(given))
    }

    private func write(_ clip: SoundClip, to pcm: OpaquePointer) throws {
        var offset = 0
        while offset < clip.samples.count {
            let written = clip.samples.withUnsafeBufferPointer { buffer in
                snd_pcm_writei(pcm, buffer.baseAddress! + offset, snd_pcm_uframes_t(buffer.count - offset))
            }
            if written >= 0 {
                offset += written
                continue
            }
            // An underrun or a suspend is recovered from; a device gone is not.
            let recovered = snd_pcm_recover(pcm, Int32(written), 1)
            guard recovered >= 0 else { throw failure("the sound device stopped playing", recovered) }
        }
    }

    private func failure(_ what: String, _ code: Int32) -> Failure {
        Failure(description: "\(what) \"\(name)\": \(String(cString: snd_strerror(code)))")
    }
}
