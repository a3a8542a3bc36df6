"""How many translate requests may be in flight: found by watching the service, never above a ceiling.

A service limits how many requests an account may have in flight without saying how many, and
answers 429 beyond it. :class:`Controller` is the I/O-free rule, :class:`Limiter` its asyncio shell:

- it starts at :data:`INITIAL` and grows while answers come: one more request in flight per
  answer until the first 429 (doubling per round trip, as TCP's slow start);
- it keeps the most requests the service has demonstrably held at once (its *floor*): an
  answered request and the answered ones sent shortly before it were all in the service
  together, and so were it and those sent shortly after it, whichever order the answers come
  back in. "Shortly" is half the shortest round trip seen: a request's answer cannot have left
  the service that soon, as long as the network takes less of a round trip than the service's
  own work (over loopback it takes nothing; to a translation service, a fraction). A request
  counts as sent when it is written (its task runs again), not when it is let go: the event
  loop may be busy in between (judging, packing), and the ones sent before it may have left
  the service meanwhile. The floor never reaches a level a limit's 429 came at, unless that
  level has held since;
- a 429 teaches about the limit only when refusals grow with the requests in flight: the
  refusals at the refused request's level and above are weighed against the refusal rate below
  it, over the last outcomes (:meth:`Controller._beyond_limit`). Refusals that come alike at every
  level are noise (a busy service, a shared rate limit): only the refused request waits out its
  ``Retry-After``, and then goes before the requests not sent yet;
- a limit's 429 pulls the limit below the number in flight with the refused request (the service
  evidently took no more), and at the first 429 of a burst back to the floor when one is known
  (the overshoot of slow start is then undone in one back-off, not two), else to half. Early in a
  run two random 429s at the newest levels look like a limit's; when 429s then come below the
  level backed off to, and the refusals no longer grow with the requests in flight, the back-off
  is undone (limit, floor and pause as they were before it);
- the refused request waits ``Retry-After`` seconds (or a doubling default when the service sent
  none) before it goes again, through the limiter like any other. When the back-off had no floor
  to go back to, a limit's 429 pauses every sender as well: nothing new goes out before the pause
  ends, so there is no storm of requests that are all refused again. Backed by a floor, the others
  go on meanwhile, at most as many at once as the service was seen holding;
- after that it grows by a *probe* once the level it is at has been held for twice its number of
  answers without a limit's 429, and at most once per ``probe_interval`` seconds, an interval
  that doubles each time a 429 follows. A probe climbs one level, and twice as many as the last
  while probes hold (back to one after a back-off), so a back-off that noise looked like a limit
  is undone in a few probes. A refused probe backs off to the floor and costs only the refused
  request's wait, so probing stays cheap, and the doubling keeps the 429s few over a long run.
  The level becomes the floor (the floor from round trips alone counts only about half of what a
  steady stream has in the service) once twice its number of requests sent with the level full
  were answered with no 429 at all at that level or above, random-looking ones included: one
  level above the limit is refused only now and then, when no request has just left. "Full"
  counts the requests sent at most a shortest round trip before: an older one's answer may have
  come and wait to be read, and would make a level look held that never was. Near the end of
  the work there is no probe: when the requests waiting would all be answered at the level held
  before a refused probe could come back (its wait and two round trips), a probe could only
  lengthen the run;
- the limit never exceeds ``ceiling`` (``[service] concurrency``).

A request refused with 429 waits and goes again as long as the run makes progress: the limiter
keeps when the service last answered (:meth:`Limiter.stalled`), and a run whose requests have all
been refused for :data:`PATIENCE` seconds, or :data:`PATIENT_REFUSALS` times in a row (a service
that asks for no wait), stops, saying so, rather than wait forever.

The send stage takes a :class:`Ticket` before each request and hands it back with what happened:
:meth:`Limiter.answered`, :meth:`Limiter.refused` (429: retry the request with a new ticket),
or :meth:`Limiter.release` (any other outcome, which teaches nothing about the limit).
"""

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import NamedTuple

DEFAULT_PAUSE = 1.0  # seconds, after a 429 without Retry-After; doubles while they keep coming
MAX_PAUSE = 60.0
PROBE_INTERVAL = 0.5  # seconds between probes, doubling after each one refused
MAX_PROBE_INTERVAL = 600.0
#: Requests in flight before the first answer. Slow start doubles per round trip and overshoots a
#: limit by up to twice either way, so starting at 4 rather than 2 costs no more 429s where the
#: service takes 1, 2 or 4 at once, and saves a round trip where it takes 4 or more (simulated,
#: 108 requests of 0.2 s: 6, 4 and 5 429s at limits 1, 2 and 4 from either start; 8 would cost 10
#: and 8 at limits 1 and 2). The specification does not say how many the service takes.
INITIAL = 4
#: Seconds without an answer (every request refused or failing) after which a refused request gives up.
PATIENCE = 120.0
#: 429s in a row (no answer between them) after which a refused request gives up.
PATIENT_REFUSALS = 256


#: Answered tickets remembered for the floor, per place of the ceiling: the young of a ticket are
#: always among the last ``ceiling`` let go.
_KEEP_ANSWERED = 4
#: Outcomes remembered per level, to tell a limit from noise (:meth:`Controller._beyond_limit`).
_KEEP_PER_LEVEL = 32
#: The G statistic (twice the log-likelihood ratio) at which refusals are taken to be more frequent
#: from some level up than below it: about one chance in a thousand for noise, with the levels tried.
LIMIT_EVIDENCE = 12.0
#: Odds at which refusals from some level up are taken for a limit's (which refuses most requests
#: beyond it) rather than the refusal rate below that level, where few outcomes are known yet.
LIMIT_ODDS = 100.0
_BEYOND_LIMIT = 0.9
_PRIOR = (0.4, 4.0)  # refusals and outcomes assumed below a level before any is seen: 10 %


class Ticket(NamedTuple):
    """Leave for one request: ``level`` is how many were in flight with it (let go, not ended) when it was let go."""

    level: int
    epoch: int  # how many back-offs had happened when it was let go
    number: int = 0  # the order it was let go in
    sent_at: float = 0.0
    young: tuple[int, ...] = ()  # the numbers of the requests in flight sent shortly before it
    surely: int = 0  # how many of the ``level`` were sent too shortly before it to have been answered yet


class _BackOff(NamedTuple):
    """A back-off for a limit, and what it changed: undone if the 429 it was taken for turns out to be noise."""

    level: int  # the refused request's
    limit: float
    floor: int
    refused_level: int | None
    paused_until: float


class Controller:
    """The additive-increase, back-off-on-429 rule, with every clock reading passed in (``now``)."""

    def __init__(self, ceiling: int, initial: int = INITIAL, probe_interval: float = PROBE_INTERVAL) -> None:
        if ceiling < 1:
            raise ValueError("ceiling must be at least 1")
        self.ceiling = ceiling
        self.limit = float(min(ceiling, max(1, initial)))
        self.in_flight = 0
        self.paused_until = 0.0
        self.refused_level: int | None = None  # lowest level a 429 came at; None: none yet (slow start)
        self.epoch = 0
        self.probe_interval = probe_interval
        self.next_probe = 0.0
        self.floor = 0  # most requests the service was seen holding at once; 0: not known yet
        self.shortest = math.inf  # the shortest round trip of an answered request
        self._to_floor = False  # the last burst of 429s backed off to the floor
        self._steady = 0  # answers since the limit last changed or a 429 came
        self._held = 0  # answers sent at the level allowed since a 429 came at that level or above (noise too)
        self._step = 1  # levels the next probe climbs: doubles while probes hold, 1 again after a back-off
        self._pause = DEFAULT_PAUSE
        self._last_wait = DEFAULT_PAUSE  # what the last 429 waited: what a refused probe would cost
        self._let_go = 0
        self._out: dict[int, float] = {}  # number -> when it was sent, for the requests sent and in flight
        self._unsent: set[int] = set()  # numbers let go whose request is not written yet (:meth:`sent`)
        # The lowest level a limit's 429 came at since a level at least as high last held steady: the
        # floor from round trips never reaches it (a round trip can count a request the service had
        # already let go, when the client wrote the other late; a refusal at the level cannot lie).
        self._refused_at: int | None = None
        self._answered: dict[int, float] = {}  # recent requests answered (not 429): number -> when it was sent
        # Per level (the number in flight at grant): whether each of its last outcomes was a 429.
        self._outcomes = [deque[bool](maxlen=_KEEP_PER_LEVEL) for _ in range(ceiling + 1)]
        self.noise = 0  # 429s taken for noise: only the refused request waited
        self.undone = 0  # back-offs undone: the 429s they were taken for turned out to be noise
        self._backed: _BackOff | None = None  # the last back-off, while it may still be undone

    @property
    def allowed(self) -> int:
        """How many requests may be in flight now (pauses aside)."""
        return max(1, min(self.ceiling, math.floor(self.limit)))

    def grant(self, now: float, written: bool = True) -> Ticket | float:
        """A ticket when a request may go at ``now``; otherwise seconds until a pause ends, or ``math.inf``
        when only an answer (a request leaving flight) can make room.

        ``written``: the request is sent at ``now``. Otherwise it holds its place from now on, but
        counts among the requests in the service only once :meth:`sent` says it was written: a
        request let go while the event loop is busy is written later, and the ones sent before it
        may have left the service by then.
        """
        if now < self.paused_until:
            return self.paused_until - now
        if self.in_flight >= self.allowed:
            return math.inf
        self.in_flight += 1
        self._let_go += 1
        ticket = Ticket(self.in_flight, self.epoch, self._let_go, now)
        if written:
            return self._stamped(ticket, now)
        self._unsent.add(ticket.number)
        return ticket

    def sent(self, ticket: Ticket, now: float) -> Ticket:
        """The request of ``ticket`` (granted with ``written=False``) is written at ``now``; the ticket it holds now."""
        if ticket.number not in self._unsent:
            return ticket
        self._unsent.discard(ticket.number)
        return self._stamped(ticket, now)

    def _stamped(self, ticket: Ticket, now: float) -> Ticket:
        """``ticket`` sent at ``now``: with the young ones sent before it, and how many were surely in flight with it.

        Those sent at most the shortest round trip before it cannot have been answered yet. An older
        one's answer may have come and wait to be read while the event loop is busy: counted, it
        would make a level look held that never was. (Its level still counts it: a 429 at that
        level says the service held the others, and an older one may well be among them.)
        """
        young = tuple(other for other, at in self._out.items() if now - at < self.shortest / 2)
        surely = 1 + sum(1 for at in self._out.values() if now - at <= self.shortest)
        self._out[ticket.number] = now
        return ticket._replace(sent_at=now, young=young, surely=surely)

    def answered(self, ticket: Ticket, now: float, waiting: int | None = None) -> None:
        """The request of ``ticket`` was answered (not 429): grow. ``waiting``: the requests queued for a
        ticket, when known (too few for a probe to pay, and there is none)."""
        self._ended(ticket)
        self._note(ticket.level, False)
        self.shortest = min(self.shortest, now - ticket.sent_at)
        # It was in the service with every young request answered before it: they were sent so
        # shortly before it that their answers had not left the service yet when it came.
        held = 1 + sum(1 for number in ticket.young if number in self._answered)
        # Or with the answered ones sent shortly after it, for the same reason: answers come back in any order,
        # and the first of a group sent together may be answered last. (Either group alone: the ones before and
        # the ones after it may not all have been in the service at once.)
        later = 1 + sum(1 for at in self._answered.values() if 0 <= at - ticket.sent_at < self.shortest / 2)
        held = max(held, later)
        if self._refused_at is not None:
            held = min(held, self._refused_at - 1)
        self.floor = max(self.floor, held)
        self._answered[ticket.number] = ticket.sent_at
        if len(self._answered) > 2 * _KEEP_ANSWERED * self.ceiling:
            oldest = self._let_go - _KEEP_ANSWERED * self.ceiling
            self._answered = {number: at for number, at in self._answered.items() if number > oldest}
        self._pause = DEFAULT_PAUSE
        if self.refused_level is None:
            self.limit = min(self.ceiling, self.limit + 1)
            return
        self._steady += 1
        if ticket.surely >= self.allowed:  # only a request sent with the level full shows that the level holds
            self._held += 1
        if self._held >= 2 * self.allowed:  # held without any 429 for a while: safe to come back to
            self.floor = max(self.floor, self.allowed)
            if self._refused_at is not None and self.allowed >= self._refused_at:
                self._refused_at = None  # a level refused before holds now
        if self._steady < 2 * self.allowed:
            return
        if now >= self.next_probe and self.limit < self.ceiling and self._worth_probing(waiting):
            # Probe higher: the service may take more now than when it refused (or it refused at random).
            held, self._step = self.allowed, 2 * self._step
            self.limit = float(min(self.ceiling, held + self._step // 2))
            self.refused_level = self.allowed
            self.next_probe = now + self.probe_interval
            self._steady = self._held = 0

    def _worth_probing(self, waiting: int | None) -> bool:
        """Whether the requests waiting keep the level held busy longer than a refused probe would wait."""
        if waiting is None or math.isinf(self.shortest):
            return True
        return waiting * self.shortest / self.allowed > self._last_wait + 2 * self.shortest

    def refused(self, ticket: Ticket, retry_after: float | None, now: float) -> float:
        """The request of ``ticket`` was answered 429: back off if a limit refused it; returns the seconds it waits
        before going again.

        A 429 that looks like noise (:meth:`_beyond_limit`) changes nothing but that request's
        wait. After a limit's, every sender is paused too unless the back-off of its burst went back
        to the floor.

        The service held at least its limit besides this request. While the limit grows (before
        any back-off) requests go out one by one as answers come, so the level the refused one was
        let go at says what the service took; the first back-off also at least halves the limit, as
        slow start overshoots by up to twice. Later, requests let go together after a pause reach
        the service in any order, so the most requests out with the refused one (at its grant or
        now) bounds what it takes. The level above the new limit counts as refused: going back
        there is a probe.
        """
        first = ticket.epoch == 0
        # While the limit grows, requests go out one by one and the level says what the service
        # held; after a back-off, those let go together reach it in any order.
        out = ticket.level if first else max(ticket.level, self.in_flight)
        self._ended(ticket)
        self._note(ticket.level, True)
        if ticket.level >= self.allowed:
            self._held = 0
        pause = min(retry_after if retry_after is not None else self._pause, MAX_PAUSE)
        self._last_wait = pause
        if retry_after is None:
            self._pause = min(MAX_PAUSE, self._pause * 2)
        if not self._beyond_limit(ticket.level):
            self.noise += 1
            backed = self._backed
            if backed is not None and ticket.level <= self.allowed and not self._beyond_limit(backed.level):
                # Refused below the limit it backed off to, and the refusals no longer grow with
                # the requests in flight: the 429s it was taken for were noise too.
                self.limit, self.floor, self.refused_level = backed.limit, backed.floor, backed.refused_level
                self.paused_until = backed.paused_until
                self._backed, self._refused_at = None, None
                self.undone += 1
            return pause
        self._steady, self._step = 0, 1
        self._refused_at = min(ticket.level, self._refused_at or ticket.level)
        target = out - 1
        if ticket.epoch == self.epoch:  # the first 429 of its burst: one back-off per burst
            self._backed = _BackOff(ticket.level, self.limit, self.floor, self.refused_level, self.paused_until)
            self._to_floor = 0 < self.floor < self.allowed
        if first and self.epoch == 0:  # undo slow start's overshoot
            target = min(target, self.floor if self._to_floor else self.allowed // 2)
        if ticket.epoch == self.epoch:
            target = min(target, self.floor if self._to_floor else self.allowed - 1)
            if self.refused_level is not None:  # a refused probe: wait longer before the next
                self.probe_interval = min(MAX_PROBE_INTERVAL, self.probe_interval * 2)
            self.epoch += 1
            self.next_probe = now + self.probe_interval
        self.limit = float(max(1, min(self.allowed, target)))
        self.floor = min(self.floor, self.allowed)  # the service may take fewer now than it once did
        self.refused_level = self.allowed + 1
        if not self._to_floor:  # no level known to be safe: nobody sends until the pause is over
            self.paused_until = max(self.paused_until, now + pause)
        return pause

    def _note(self, level: int, refused: bool) -> None:
        self._outcomes[min(level, self.ceiling)].append(refused)

    def _beyond_limit(self, level: int) -> bool:
        """Whether the refusals grow with the requests in flight, as a limit's do, up to ``level``.

        Noise refuses at every level alike, a limit only beyond it: for each level up to the
        refused request's, the outcomes at that level or above are weighed against those below it,
        two ways. The odds that a limit refusing most requests beyond it, rather than the rate
        below (with a prior while little is known), made the refusals above must reach
        :data:`LIMIT_ODDS`: a burst beyond the limit tells at once. Or a G-test of the two rates
        must reach :data:`LIMIT_EVIDENCE`: it tells a level refused now and then (one above the
        limit, where a request gets in whenever another has just left) from the levels below.
        """
        refused = [sum(outcomes) for outcomes in self._outcomes]
        counts = [len(outcomes) for outcomes in self._outcomes]
        refused_above, above = sum(refused), sum(counts)
        refused_below = below = 0
        for split in range(1, min(level, self.ceiling) + 1):
            refused_above -= refused[split - 1]
            above -= counts[split - 1]
            refused_below += refused[split - 1]
            below += counts[split - 1]
            rate = min((refused_below + _PRIOR[0]) / (below + _PRIOR[1]), _BEYOND_LIMIT)
            odds = (_BEYOND_LIMIT / rate) ** refused_above * ((1 - _BEYOND_LIMIT) / (1 - rate)) ** (
                above - refused_above
            )
            if odds >= LIMIT_ODDS:
                return True
            if below and above and refused_above * below > refused_below * above:
                apart = _log_likelihood(refused_above, above) + _log_likelihood(refused_below, below)
                together = _log_likelihood(refused_above + refused_below, above + below)
                if 2 * (apart - together) >= LIMIT_EVIDENCE:
                    return True
        return False

    def release(self, ticket: Ticket) -> None:
        """The request of ``ticket`` ended some other way (error, cancelled): free its place only."""
        self._ended(ticket)

    def _ended(self, ticket: Ticket) -> None:
        self.in_flight -= 1
        self._out.pop(ticket.number, None)
        self._unsent.discard(ticket.number)


class Limiter:
    """The controller for asyncio tasks: :meth:`acquire` waits its turn, first come first served."""

    def __init__(
        self,
        controller: Controller,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.controller = controller
        self._clock, self._sleep = clock, sleep
        self._waiters: deque[asyncio.Future[Ticket]] = deque()
        self._again: deque[asyncio.Future[Ticket]] = deque()  # refused requests, back from their wait
        self._timer: asyncio.Task[None] | None = None
        self.refusals = 0
        self._progress: float | None = None  # when the service last answered, or the first request left
        self._refused_since = 0  # 429s since the service last answered

    async def acquire(self, again: bool = False) -> Ticket:
        """Wait until a request may go; the ticket must be handed back by exactly one of the methods below.

        ``again``: the request was refused (429) and waited out its Retry-After: it goes before
        the requests not sent yet, so that one refused twice does not also wait for all of them.
        """
        if self._progress is None:
            self._progress = self._clock()
        if not (self._again or self._waiters):
            granted = self.controller.grant(self._clock())
            if isinstance(granted, Ticket):
                return granted
        waiter: asyncio.Future[Ticket] = asyncio.get_running_loop().create_future()
        (self._again if again else self._waiters).append(waiter)
        self._wake()
        try:
            ticket = await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted just as it was cancelled
                self.release(waiter.result())
            raise
        # Granted when an answer made room, the request is written only now that its task runs again:
        # after whatever held the event loop meanwhile (judging an answer, packing a part).
        return self.controller.sent(ticket, self._clock())

    def now(self) -> float:
        """The limiter's clock."""
        return self._clock()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` on the limiter's clock (a refused request's own Retry-After)."""
        await self._sleep(seconds)

    def answered(self, ticket: Ticket) -> None:
        """The request was answered (not 429)."""
        self._progress, self._refused_since = self._clock(), 0
        self.controller.answered(ticket, self._clock(), len(self._waiters) + len(self._again))
        self._wake()

    def idle(self) -> bool:
        """Whether no request holds a ticket or queues for one."""
        return self.controller.in_flight == 0 and not (self._waiters or self._again)

    def stalled(self) -> bool:
        """Whether every request since the last answer (or the first request) was refused, for
        :data:`PATIENCE` seconds or :data:`PATIENT_REFUSALS` times."""
        if self._progress is None:
            return False
        return self._clock() - self._progress >= PATIENCE or self._refused_since >= PATIENT_REFUSALS

    def refused(self, ticket: Ticket, retry_after: float | None) -> float:
        """The request was answered 429 (``Retry-After`` in seconds, when sent); returns the seconds it
        waits before it asks for a ticket again."""
        self.refusals += 1
        self._refused_since += 1
        pause = self.controller.refused(ticket, retry_after, self._clock())
        self._wake()
        return pause

    def release(self, ticket: Ticket) -> None:
        """The request ended otherwise."""
        self.controller.release(ticket)
        self._wake()

    def _wake(self) -> None:
        """Let waiting requests go, refused ones first, oldest first, as far as the controller allows."""
        while self._again or self._waiters:
            queue = self._again if self._again else self._waiters
            if queue[0].done():  # cancelled while waiting
                queue.popleft()
                continue
            granted = self.controller.grant(self._clock(), written=False)
            if isinstance(granted, Ticket):
                queue.popleft().set_result(granted)
                continue
            if granted != math.inf and (self._timer is None or self._timer.done()):
                self._timer = asyncio.get_running_loop().create_task(self._after(granted))
            return

    def close(self) -> None:
        """Stop the timer of a pause still running (the run is over)."""
        if self._timer is not None:
            self._timer.cancel()

    async def _after(self, seconds: float) -> None:
        await self._sleep(seconds)
        self._timer = None  # done sleeping: a pause extended meanwhile needs a timer of its own
        self._wake()


def _log_likelihood(refused: int, outcomes: int) -> float:
    """Log-likelihood of ``refused`` refusals among ``outcomes`` at their own rate."""
    kept = outcomes - refused
    return (refused * math.log(refused / outcomes) if refused else 0.0) + (
        kept * math.log(kept / outcomes) if kept else 0.0
    )
