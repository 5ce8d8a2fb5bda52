/**
 * A signal that aborts when the client of a request goes away before its answer is sent (it closed the
 * connection or gave up): work done only for that answer (drawing a page, checking a dashboard) can then
 * stop instead of holding threads that other requests wait for.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

export function clientSignal(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  const gone = (): void => {
    // 'close' follows a response sent in full too; only one cut short means nobody is listening.
    if (response.writableFinished) return;
    // Nobody reads this answer; the code keeps it out of the log of server faults.
    controller.abort(new AppError('BAD_REQUEST', 'The client closed the connection before its answer was ready, so the work for it was stopped.'));
  };
  if (response.destroyed || request.socket.destroyed) gone();
  else response.once('close', gone);
  return controller.signal;
}
