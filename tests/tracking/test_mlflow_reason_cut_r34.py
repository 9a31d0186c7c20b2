"""An MLflow failure's reason is cut to one short line at a word, with "..." saying it was cut (it was cut
mid-word at 300 characters: "...Failed to establish a new connection: [);"; round 34)."""
from veracity.tracking._mlflow import _reason


def test_a_long_reason_is_cut_at_a_word_and_marked():
    words = "HTTPConnectionPool(host='localhost', port=5999): Max retries exceeded with url " * 8
    cut = _reason(ConnectionError(words + "Failed to establish a new connection: [Errno 111] refused"))
    assert cut.endswith(" ...") and len(cut) <= 304
    assert words.startswith(cut[:-4])  # whole words of the reason, in order
    assert _reason(ConnectionError("short  reason\nhere")) == "short reason here"
