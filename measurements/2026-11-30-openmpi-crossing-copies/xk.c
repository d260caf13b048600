#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int r; MPI_Comm_rank(MPI_COMM_WORLD,&r);
  int sizes[]={65536,262144,1048576};
  for(int si=0;si<3;si++){ int S=sizes[si];
   for(int k=1;k<=4;k*=2){
    char*sb=malloc((size_t)S*k), *rb=malloc((size_t)S*k);
    for(long i=0;i<(long)S*k;i++){sb[i]=i;rb[i]=0;}
    MPI_Request q[8]; int reps=400; double best=1e9, tot=0;
    for(int rep=0;rep<reps+20;rep++){
      MPI_Barrier(MPI_COMM_WORLD); double t=MPI_Wtime();
      for(int j=0;j<k;j++) MPI_Irecv(rb+(long)j*S,S,MPI_BYTE,1-r,j,MPI_COMM_WORLD,&q[j]);
      for(int j=0;j<k;j++) MPI_Isend(sb+(long)j*S,S,MPI_BYTE,1-r,j,MPI_COMM_WORLD,&q[k+j]);
      MPI_Waitall(2*k,q,MPI_STATUSES_IGNORE); t=MPI_Wtime()-t;
      if(rep>=20){tot+=t; if(t<best)best=t;}
    }
    /* one-way: pingpong */
    double pp=0; for(int rep=0;rep<reps+20;rep++){ MPI_Barrier(MPI_COMM_WORLD); double t=MPI_Wtime();
      if(r==0){MPI_Send(sb,S,MPI_BYTE,1,0,MPI_COMM_WORLD);MPI_Recv(rb,S,MPI_BYTE,1,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);}
      else{MPI_Recv(rb,S,MPI_BYTE,0,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);MPI_Send(sb,S,MPI_BYTE,0,0,MPI_COMM_WORLD);}
      t=MPI_Wtime()-t; if(rep>=20)pp+=t/2;}
    if(r==0) printf("S=%7d k=%d  exch mean %8.1f us  node GB/s %6.2f   one-way %7.1f us (%5.2f GB/s)\n",S,k,tot/reps*1e6, 2.0*k*S/(tot/reps)/1e9, pp/reps*1e6, S/(pp/reps)/1e9);
    free(sb);free(rb);
   }}
  MPI_Finalize();}
