//! The glue hyper 1 needs: its own `Read`/`Write` traits over a tokio `TcpStream` (instead
//! of pulling in hyper-util), a one-shot response body, and reading a request body whole.

use std::convert::Infallible;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper::body::{Body, Bytes, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite};

/// A tokio stream seen through hyper's I/O traits.
pub(crate) struct Io<T>(pub T);

impl<T: AsyncRead + Unpin> hyper::rt::Read for Io<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        // SAFETY: tokio's ReadBuf only writes initialised bytes into the slice and reports how
        // many through `filled()`; we advance hyper's cursor by exactly that many.
        let n = unsafe {
            let mut tbuf = tokio::io::ReadBuf::uninit(buf.as_mut());
            match Pin::new(&mut self.0).poll_read(cx, &mut tbuf) {
                Poll::Ready(Ok(())) => tbuf.filled().len(),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        };
        // SAFETY: `n` bytes were initialised by the read above.
        unsafe { buf.advance(n) };
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> hyper::rt::Write for Io<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write_vectored(cx, bufs)
    }
}

/// A response body sent in one frame (or empty).
pub(crate) struct Full(Option<Bytes>);

impl Full {
    pub(crate) fn new(b: impl Into<Bytes>) -> Full {
        let b = b.into();
        Full(if b.is_empty() { None } else { Some(b) })
    }

    pub(crate) fn empty() -> Full {
        Full(None)
    }
}

impl Body for Full {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.take().map(|b| Ok(Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.0.as_ref().map_or(0, |b| b.len() as u64))
    }
}

/// Why a body could not be read whole.
pub(crate) enum BodyError {
    TooLarge,
    Io(hyper::Error),
}

/// The most a declared Content-Length reserves before its bytes arrive: a peer that declares
/// the body limit and sends nothing costs this much, not the limit (1,000 such peers reserved
/// 16.7 GB of address space); the buffer grows with what really arrives.
pub(crate) const MAX_RESERVE: usize = 64 << 10;

/// Read a request body completely, refusing more than `limit` bytes.
pub(crate) async fn read_body<B>(body: B, limit: usize, hint: usize) -> Result<Vec<u8>, BodyError>
where
    B: Body<Data = Bytes, Error = hyper::Error>,
{
    let mut body = std::pin::pin!(body);
    let mut out = Vec::with_capacity(hint.min(limit).min(MAX_RESERVE));
    while let Some(frame) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(BodyError::Io)?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > limit {
                return Err(BodyError::TooLarge);
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out)
}
