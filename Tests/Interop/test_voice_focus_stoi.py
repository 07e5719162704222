"""Cross-checks Carillon's STOI (SpeechIntelligibility, written from Taal et al. 2011) against PyPI pystoi on the
Voice Focus corpus that `carillon bench voice-focus` generates and prints."""
import os
import re
import subprocess

import numpy as np
import pytest
from scipy.io import wavfile

pystoi = pytest.importorskip("pystoi")

# The two implementations resample to 10 kHz with different filters (measured difference 0.0004 at most).
TOLERANCE = 0.005


def test_stoi_matches_pystoi(tmp_path):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    result = subprocess.run(
        [binary, "bench", "voice-focus", "--seconds", "6", "--snr", "0,10", "--corpus-directory", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    if "Voice Focus is unavailable" in result.stderr + result.stdout:
        pytest.skip("RNNoise is not installed (make rnnoise)")
    assert result.returncode == 0, result.stderr
    rows = re.findall(r"^(\S+)\s+(-?\d+) dB .*?(\d\.\d{3}) -> (\d\.\d{3})", result.stdout, re.MULTILINE)
    assert len(rows) == 8, result.stdout
    rate, clean = wavfile.read(tmp_path / "clean.wav")
    clean = clean.astype(np.float64)
    for noise, snr, noisy_score, processed_score in rows:
        for kind, printed in (("noisy", noisy_score), ("processed", processed_score)):
            _, signal = wavfile.read(tmp_path / f"{noise}-{snr}-{kind}.wav")
            signal = signal.astype(np.float64)
            length = min(len(clean), len(signal))
            reference = pystoi.stoi(clean[:length], signal[:length], rate, extended=False)
            assert abs(reference - float(printed)) <= TOLERANCE, f"{noise} {snr} dB {kind}: pystoi {reference:.4f}, carillon {printed}"
