// Alerts by e-mail over SMTP with nodemailer: STARTTLS required (unless the port speaks TLS from the
// start), authenticated when a user is configured.
import { rootCertificates } from 'node:tls';
import nodemailer from 'nodemailer';

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS, which is then required. */
  secure: boolean;
  user?: string;
  password?: string;
  from: string;
  /** Extra trusted CA certificates (PEM), besides the system's. */
  ca?: string;
}

export async function sendEmail(smtp: SmtpSettings, to: string, message: { subject: string; text: string }): Promise<void> {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: !smtp.secure,
    ...(smtp.user !== undefined && { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
    ...(smtp.ca !== undefined && { tls: { ca: [...rootCertificates, smtp.ca] } }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    await transport.sendMail({ from: smtp.from, to, subject: message.subject, text: message.text });
  } finally {
    transport.close();
  }
}
