/* global document, requestAnimationFrame */
// The built-in demo game of the local run: a ball bounces around the board; click it to score.
const board = document.getElementById('board');
const paint = board.getContext('2d');
const status = document.getElementById('status');
const score = document.getElementById('score');
const ball = { x: 90, y: 70, dx: 3, dy: 2.3, r: 24 };
let points = 0;

function frame() {
  ball.x += ball.dx;
  ball.y += ball.dy;
  if (ball.x < ball.r || ball.x > board.width - ball.r) ball.dx = -ball.dx;
  if (ball.y < ball.r || ball.y > board.height - ball.r) ball.dy = -ball.dy;
  paint.fillStyle = '#1c2541';
  paint.fillRect(0, 0, board.width, board.height);
  paint.fillStyle = '#fca311';
  paint.beginPath();
  paint.arc(ball.x, ball.y, ball.r, 0, Math.PI * 2);
  paint.fill();
  requestAnimationFrame(frame);
}

board.addEventListener('click', (event) => {
  const box = board.getBoundingClientRect();
  const x = ((event.clientX - box.left) * board.width) / box.width;
  const y = ((event.clientY - box.top) * board.height) / box.height;
  if (Math.hypot(x - ball.x, y - ball.y) > ball.r) return;
  points += 1;
  score.value = String(points);
  // Every hit makes the ball a little faster.
  ball.dx *= 1.1;
  ball.dy *= 1.1;
});

status.textContent = 'Game started: click the ball!';
status.dataset.state = 'running';
requestAnimationFrame(frame);
