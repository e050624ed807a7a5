import { resampler, TARGET_RATE } from './audioInput.ts';

/** A running microphone capture; `stop()` releases the device. */
export interface MicCapture {
  rate: number;
  stop(): Promise<void>;
}

/**
 * Captures the default microphone with getUserMedia and a ScriptProcessor (works everywhere, no
 * worklet module to serve), mixes to mono and resamples to 16 kHz; calls `onSamples` per block.
 * @example const mic = await startMicrophone((x) => windower.push(x)); …; await mic.stop()
 */
export async function startMicrophone(
  onSamples: (samples: Float32Array) => void,
  rate = TARGET_RATE,
): Promise<MicCapture> {
  if (!navigator.mediaDevices?.getUserMedia)
    throw new Error('this browser cannot capture audio here (a secure context — https or localhost — is needed)');
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  });
  const ctx = new AudioContext();
  const source = ctx.createMediaStreamSource(stream);
  const proc = ctx.createScriptProcessor(4096, 1, 1);
  const resample = resampler(ctx.sampleRate, rate);
  let live = true;
  proc.onaudioprocess = (ev) => {
    if (!live) return;
    onSamples(resample(ev.inputBuffer.getChannelData(0)));
  };
  // A ScriptProcessor only runs while connected to the destination; it writes silence to it.
  const mute = ctx.createGain();
  mute.gain.value = 0;
  source.connect(proc);
  proc.connect(mute);
  mute.connect(ctx.destination);
  if (ctx.state === 'suspended') await ctx.resume();
  return {
    rate: ctx.sampleRate,
    async stop() {
      live = false;
      proc.onaudioprocess = null;
      source.disconnect();
      proc.disconnect();
      for (const t of stream.getTracks()) t.stop();
      await ctx.close();
    },
  };
}
